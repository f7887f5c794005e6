/**
 * Cost at query time (engine.md §8.5): usage rows keep tokens only; cost is Σ tokens × price / 1e6 over
 * the three priced buckets (cache_read, cache_write, output, USD per million tokens), with each
 * (project, provider, model) priced once per query. Tokens of a model without pricing are left out of
 * the cost and flag the result `hasUncosted`; `cost` is null when nothing in a group was priced.
 */
import type { TokenCounts } from '../../core/omnimessage/types';
import type { UsageFilter, UsageGroupBy, UsageStore, UsageSums } from './types';

export interface PricingRates {
  cache_read: number;
  cache_write: number;
  output: number;
}
export type PricingLookup = (projectId: string, provider: string, modelId: string) => PricingRates | undefined | Promise<PricingRates | undefined>;

export interface CostedUsage extends TokenCounts {
  key: string;
  requests: number;
  failures: number;
  /** USD; null when no tokens of the group were priced. */
  cost: number | null;
  hasUncosted: boolean;
}

export function costOf(c: Pick<TokenCounts, 'cache_read' | 'cache_write' | 'output'>, r: PricingRates): number {
  return (c.cache_read * r.cache_read + c.cache_write * r.cache_write + c.output * r.output) / 1e6;
}

const empty = (key: string): CostedUsage => ({ key, cache_read: 0, cache_write: 0, output: 0, total: 0, requests: 0, failures: 0, cost: null, hasUncosted: false });

function fold(acc: CostedUsage, s: UsageSums, rates: PricingRates | undefined): void {
  acc.cache_read += s.cache_read;
  acc.cache_write += s.cache_write;
  acc.output += s.output;
  acc.total += s.total;
  acc.requests += s.requests;
  acc.failures += s.failures;
  const tokens = s.cache_read + s.cache_write + s.output + s.total;
  if (rates) acc.cost = (acc.cost ?? 0) + costOf(s, rates);
  // A zero-token failure row costs nothing whether or not its model is priced.
  else if (tokens > 0) acc.hasUncosted = true;
}

/** Groups (in key order) and their grand total, costed. */
export async function costUsage(sums: readonly UsageSums[], lookup: PricingLookup): Promise<{ groups: CostedUsage[]; total: CostedUsage }> {
  const rates = new Map<string, PricingRates | undefined>();
  for (const s of sums) {
    const k = JSON.stringify([s.project_id, s.provider, s.model_id]);
    if (!rates.has(k)) rates.set(k, await lookup(s.project_id, s.provider, s.model_id));
  }
  const groups = new Map<string, CostedUsage>();
  const total = empty('');
  for (const s of sums) {
    const r = rates.get(JSON.stringify([s.project_id, s.provider, s.model_id]));
    let g = groups.get(s.key);
    if (!g) groups.set(s.key, (g = empty(s.key)));
    fold(g, s, r);
    fold(total, s, r);
  }
  return { groups: [...groups.values()], total };
}

/** Usage grouped by `groupBy` (e.g. per day, model or route) with cost, for the dashboard and API. */
export async function usageReport(store: UsageStore, groupBy: UsageGroupBy, filter: UsageFilter, lookup: PricingLookup) {
  return costUsage(await store.sumUsage(groupBy, filter), lookup);
}
