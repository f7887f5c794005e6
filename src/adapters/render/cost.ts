/**
 * Usage and cost for the live reply's footer: token counts summed over a Task's requests and priced with
 * the model's pricing (USD per million tokens for cache_read / cache_write / output, engine.md §6.4).
 */
import type { TokenCounts } from '../../core/omnimessage/types';

export interface Pricing {
  cache_read: number;
  cache_write: number;
  output: number;
}

export function costUsd(usage: TokenCounts, pricing: Pricing): number {
  return (usage.cache_read * pricing.cache_read + usage.cache_write * pricing.cache_write + usage.output * pricing.output) / 1_000_000;
}

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatCount(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  if (m < 60) return rest ? `${m} min ${rest} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}
