/**
 * OpenAI `usage` → `TokenCounts` (engine.md §3): cache_read = cached prompt tokens, cache_write = the
 * uncached rest of the prompt, output = completion tokens (reasoning included), total = their sum.
 * DeepSeek's `prompt_cache_hit_tokens` stands in when `prompt_tokens_details.cached_tokens` is absent.
 */
import type { TokenCounts } from '../omnimessage/types';

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  prompt_cache_hit_tokens?: number | null;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export function usageToCounts(u: ChatUsage): TokenCounts {
  const prompt = n(u.prompt_tokens);
  const cached = Math.min(prompt, n(u.prompt_tokens_details?.cached_tokens) || n(u.prompt_cache_hit_tokens));
  const output = n(u.completion_tokens);
  const cacheWrite = prompt - cached;
  return { cache_read: cached, cache_write: cacheWrite, output, total: cached + cacheWrite + output };
}
