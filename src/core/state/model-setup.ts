/**
 * Whether a resolved model can be called at all, before it is: a model with no API key that would be sent
 * to a public host is not configured (the call could only come back "unauthorized", which would read as a
 * rejected key). A keyless model on this machine or a private network (Ollama, vLLM, a compose service) is
 * fine. The answer says which settings configure one, for chats, the start-up log and doctor alike.
 */
import { isPrivateHost } from '../llm/private-host';
import type { ResolvedModel } from './project-models';

/** Where the OpenAI-compatible client sends requests when nothing names a base URL. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ModelSetupProblem {
  /** What is wrong, fit for anyone (no paths, no secrets). */
  problem: string;
  /** What the operator sets to fix it. */
  fix: string;
}

/** Undefined when the model can be called; else what is missing and how to set it. */
export function modelSetupProblem(m: ResolvedModel, projectFile: string): ModelSetupProblem | undefined {
  if (m.connection.apiKey) return undefined;
  const baseUrl = m.connection.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const model = `${m.entry.provider}/${m.entry.model_id}`;
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return { problem: `the model ${model} has an unusable base URL`, fix: `fix base_url of ${model} in ${projectFile}, or OPENAI_BASE_URL` };
  }
  if (isPrivateHost(host)) return undefined;
  return {
    problem: `no model endpoint is configured (${model} at ${baseUrl} has no API key)`,
    fix: `set api_key of ${model} in ${projectFile}, or OPENAI_API_KEY with OPENAI_BASE_URL=${baseUrl} (the environment's key is sent only to OPENAI_BASE_URL, api.openai.com when unset); with PENGUIN_MODEL for another model; \`penguin-gateway doctor\` checks it`,
  };
}
