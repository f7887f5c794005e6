/**
 * Per-request output cap (engine.md §3, §11): `min(maxTokens, max(window − estInput − 1024, 512))`.
 * No positive `maxTokens` ⇒ undefined (the key is omitted and the provider default applies); no usable
 * window ⇒ `maxTokens` unclamped.
 */
export const OUTPUT_MARGIN_TOKENS = 1024;
export const OUTPUT_FLOOR_TOKENS = 512;

export function outputCap(maxTokens: number | undefined, contextWindow: number | undefined, estimatedInput: number): number | undefined {
  if (maxTokens === undefined || !Number.isFinite(maxTokens) || maxTokens <= 0) return undefined;
  const cap = Math.floor(maxTokens);
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow <= 0) return cap;
  return Math.min(cap, Math.max(Math.floor(contextWindow - estimatedInput - OUTPUT_MARGIN_TOKENS), OUTPUT_FLOOR_TOKENS));
}
