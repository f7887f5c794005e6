/**
 * The model half of a Session's `GenerativeModelConfig`, from a resolved project model and the agent
 * config: the entry's `max_tokens` wins over the agent's `model.max_tokens` (engine.md §6.2), the agent's
 * `model.timeoutMs` is the idle timeout, credentials come from the env-resolved connection.
 */
import type { GenerativeModelConfig, ThinkingLevel } from '../interfaces';
import type { ResolvedModel } from './project-models';
import type { ResolvedSystemConfig } from './system-config';

export type SessionModelSettings = Omit<GenerativeModelConfig, 'tools' | 'systemPrompt' | 'toolCallIds'>;

export function sessionModelSettings(model: ResolvedModel, config: Pick<ResolvedSystemConfig, 'model'>, thinkingLevel?: ThinkingLevel): SessionModelSettings {
  const { entry, connection } = model;
  const out: SessionModelSettings = {
    modelId: entry.model_id,
    maxTokens: entry.max_tokens ?? config.model.max_tokens,
    thinkingLevel: thinkingLevel ?? config.model.thinking_level,
    requestTimeoutMs: config.model.timeoutMs,
    vision: entry.vision,
  };
  if (connection.apiKey !== undefined) out.apiKey = connection.apiKey;
  if (connection.baseUrl !== undefined) out.baseUrl = connection.baseUrl;
  if (connection.clientType !== undefined) out.clientType = connection.clientType;
  if (entry.context_window !== undefined) out.contextWindow = entry.context_window;
  if (entry.fast_mode === true) out.fastMode = true;
  return out;
}
