/**
 * `ModelFactory` for one Session on an OpenAI-compatible model entry: `create()` builds a fresh GenerativeModel
 * per context (start, compaction) sharing the Session's tool_call_id allocator and continuing the Session token
 * totals of the model it replaces; `bareGenerate()` is the one-shot call for titles and image descriptions.
 * Output cap: the entry's `max_tokens` wins over the Agent's, default 32000 (engine.md §6.2, §11).
 */
import type { ModelFactory, ThinkingLevel, ToolCallIdRegistry } from '../interfaces';
import { defineLazy } from '../lazy-property';
import type { JsonPiece } from '../json-splice';
import type { TokenCounts, ToolDefinition } from '../omnimessage/types';
import { bareGenerate, type BareGenerateOptions } from './bare-generate';
import { GenerativeModel, type OpenAIChatModelConfig } from './generative-model';
import { resolveModelConnection, type ModelEntry } from './model-entry';
import { ToolCallIdAllocator } from './tool-call-ids';

export const DEFAULT_MAX_TOKENS = 32000;

export interface ModelFactoryOptions {
  entry: ModelEntry;
  /** Where blank `api_key` / `base_url` fall back to; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The Session's frozen toolset, or a getter read at each `create()` (tools may be listed after MCP connects). */
  tools?: ToolDefinition[] | (() => ToolDefinition[]);
  /** The Session's system prompt, or a function read at each request (so the factory pins no copy of it). */
  systemPrompt?: string | (() => string);
  /** Its JSON as UTF-8, when the caller has it encoded (else each request escapes the prompt). */
  systemPromptJson?: () => readonly JsonPiece[];
  /** Its token estimate, when the caller knows it (else the model scans the prompt once). */
  systemPromptTokens?: number;
  /** The Agent's `model.max_tokens`; the entry's `max_tokens` wins. -1 = no cap. */
  maxTokens?: number;
  thinkingLevel?: ThinkingLevel;
  requestTimeoutMs?: number;
  /** Shared Session allocator; a new one by default. */
  toolCallIds?: ToolCallIdRegistry;
  /** Session totals to continue from (resume). */
  sessionUsage?: TokenCounts;
}

export interface OpenAIModelFactory extends ModelFactory {
  create(): GenerativeModel;
  bareGenerate(prompt: string, opts?: BareGenerateOptions): Promise<string>;
  readonly toolCallIds: ToolCallIdRegistry;
  /** Session totals carried by the most recent model (or the seed). */
  sessionUsage(): TokenCounts;
}

export function createModelFactory(opts: ModelFactoryOptions): OpenAIModelFactory {
  const { entry } = opts;
  const conn = resolveModelConnection(entry, opts.env ?? process.env);
  const toolCallIds = opts.toolCallIds ?? new ToolCallIdAllocator();
  const base = {
    modelId: conn.modelId,
    apiKey: conn.apiKey,
    baseUrl: conn.baseUrl,
    clientType: conn.clientType,
    vision: entry.vision,
    reasoningEffort: entry.reasoning_effort === true,
  };
  let latest: GenerativeModel | undefined;
  const seed = opts.sessionUsage;
  const prompt = opts.systemPrompt;
  const readPrompt = typeof prompt === 'function' ? prompt : () => prompt;
  return {
    toolCallIds,
    sessionUsage: () => latest?.sessionUsage ?? { ...(seed ?? { cache_read: 0, cache_write: 0, output: 0, total: 0 }) },
    create() {
      const tools = typeof opts.tools === 'function' ? opts.tools() : opts.tools ?? [];
      const fields: Omit<OpenAIChatModelConfig, 'systemPrompt'> = {
        ...base,
        tools,
        ...(opts.systemPromptTokens !== undefined ? { systemPromptTokens: opts.systemPromptTokens } : {}),
        ...(opts.systemPromptJson ? { systemPromptJson: opts.systemPromptJson } : {}),
        contextWindow: entry.context_window,
        maxTokens: entry.max_tokens ?? opts.maxTokens ?? DEFAULT_MAX_TOKENS,
        fastMode: entry.fast_mode === true,
        thinkingLevel: opts.thinkingLevel,
        requestTimeoutMs: opts.requestTimeoutMs,
        toolCallIds,
        sessionUsage: latest?.sessionUsage ?? seed,
      };
      // Read where it is used, so the model keeps no copy of the prompt (and shares its hidden class).
      const config: OpenAIChatModelConfig = defineLazy(fields, 'systemPrompt', readPrompt);
      latest = new GenerativeModel(config);
      return latest;
    },
    bareGenerate: (prompt, o) => bareGenerate(base, prompt, o),
  };
}
