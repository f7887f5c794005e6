/**
 * Token arithmetic shared by the model (output cap) and the engine (compaction, usage totals).
 * Estimates follow engine.md §3: ASCII chars / 4, each non-ASCII char as one token, an image as 1600.
 */
import type { OmniMessage, TokenCounts } from './types';

export const IMAGE_TOKEN_ESTIMATE = 1600;

export const zeroCounts = (): TokenCounts => ({ cache_read: 0, cache_write: 0, output: 0, total: 0 });

export function addCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { cache_read: a.cache_read + b.cache_read, cache_write: a.cache_write + b.cache_write, output: a.output + b.output, total: a.total + b.total };
}

/** What an estimate is made of: counts add up over the pieces of a text, estimates do not (they round). */
export interface TextCounts {
  ascii: number;
  other: number;
}

export function textCounts(s: string): TextCounts {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) ascii++;
    else if (c < 0xdc00 || c > 0xdfff) other++; // a surrogate pair counts once
  }
  return { ascii, other };
}

export const tokensOfCounts = (c: TextCounts): number => Math.ceil(c.ascii / 4) + c.other;

export function estimateTextTokens(s: string): number {
  return tokensOfCounts(textCounts(s));
}

/** Estimated input tokens of the messages a request would add. */
export function estimateMessagesTokens(msgs: readonly OmniMessage[]): number {
  let n = 0;
  for (const m of msgs) {
    if (m.type !== 'model_msg') continue;
    const p = m.payload;
    switch (p.type) {
      case 'text': n += estimateTextTokens(p.text); break;
      case 'thinking': n += estimateTextTokens(p.thinking); break;
      case 'tool_call': n += estimateTextTokens(p.name) + estimateTextTokens(p.arguments); break;
      case 'tool_call_output': n += estimateTextTokens(p.output) + (p.images?.length ?? 0) * IMAGE_TOKEN_ESTIMATE; break;
      case 'image_url': case 'inline_data': case 'inline_thinking': n += IMAGE_TOKEN_ESTIMATE; break;
      default: break;
    }
  }
  return n;
}
