/**
 * Public SDK of penguin-gateway's engine: the OmniMessage protocol and the engine interfaces, so other
 * programs can embed the engine. The gateway process itself lives behind the `penguin-gateway` CLI.
 */
export * as msg from './core/omnimessage/builders';
export * from './core/omnimessage/types';
export * from './core/omnimessage/guards';
export * from './core/omnimessage/tokens';
export * from './core/interfaces';
export * from './core/omnimessage/markers';
export * from './core/omnimessage/aggregator';
export * from './core/trace';
export {
  GenerativeModel, createModelFactory, bareGenerate, ToolCallIdAllocator, ModelEntrySchema, parseModelEntry, resolveModelConnection,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type OpenAIChatModelConfig, type OpenAIModelFactory, type ModelFactoryOptions, type ModelEntry, type ModelPricing, type ModelConnection,
} from './core/llm';
export * from './core/agent';
export {
  ContextEngine, replayTrace, systemClock, DENIED_BY_USER, DENIED_BY_POLICY, INTERRUPTED_BY_USER, INTERRUPTED_BY_EXIT,
  type Clock, type CommandPolicy, type Compactability, type CompactionConfig, type ResumeState, type EngineStatus,
} from './core/engine';
export * as state from './core/state';
export * from './core/environment';
export * from './core/compose';
export * as contract from './adapters/contract';
export * as render from './adapters/render';
export * as format from './adapters/format';
