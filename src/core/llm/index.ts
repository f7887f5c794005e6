/**
 * The model layer: an OpenAI-compatible `LLMInterface` (GenerativeModel), its factory, the bare one-shot call,
 * `[[models]]` entries, the Session-wide tool_call_id allocator and the endpoint probe (doctor asks /models and a
 * one-token request through the same client). Nothing outside this folder sees the SDK.
 */
export { GenerativeModel, DEFAULT_REQUEST_TIMEOUT_MS, CHAT_CLIENT_TYPES, type OpenAIChatModelConfig, type ChatRequestBody } from './generative-model';
export { createModelFactory, DEFAULT_MAX_TOKENS, type ModelFactoryOptions, type OpenAIModelFactory } from './factory';
export { bareGenerate, BARE_MAX_TOKENS, BARE_TIMEOUT_MS, type BareGenerateOptions, type BareModelConfig } from './bare-generate';
export { ModelEntrySchema, PricingSchema, parseModelEntry, resolveModelConnection, type ModelEntry, type ModelEntryInput, type ModelPricing, type ModelConnection } from './model-entry';
export { ToolCallIdAllocator, stripToolCallIdSuffix } from './tool-call-ids';
export { outputCap, OUTPUT_MARGIN_TOKENS, OUTPUT_FLOOR_TOKENS } from './output-cap';
export { usageToCounts } from './usage';
export { listModels, pingModel, type EndpointAnswer } from './endpoint-probe';
export type { ClientTarget } from './openai-client';
