/**
 * Order statistics for benchmark samples: median (mean of the middle two for even counts), nearest-rank
 * percentiles, and a compact summary. Empty input yields NaN rather than throwing, so a scenario that
 * collected nothing shows as "n/a" in the report instead of aborting the whole run.
 */

export function sorted(xs: readonly number[]): number[] {
  return [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
}

export function median(xs: readonly number[]): number {
  const s = sorted(xs);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile, p in (0, 100]. */
export function percentile(xs: readonly number[], p: number): number {
  const s = sorted(xs);
  if (s.length === 0) return NaN;
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1];
}

export function max(xs: readonly number[]): number {
  const s = sorted(xs);
  return s.length === 0 ? NaN : s[s.length - 1];
}

export interface Summary {
  n: number;
  median: number;
  p99: number;
  max: number;
}

export function summarize(xs: readonly number[]): Summary {
  return { n: sorted(xs).length, median: median(xs), p99: percentile(xs, 99), max: max(xs) };
}

export function round(n: number, digits = 1): number {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
