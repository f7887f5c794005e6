/**
 * /api/usage: token sums grouped by day, model, route and session with cost from the pricing lookup given
 * to the app (a model without a price gives null cost and `hasUncosted`), date bounds, and validation.
 */
import type { TokenCounts } from '../../../src/core/omnimessage/types';
import { localDate, type PricingRates } from '../../../src/gateway/store';
import { startHarness, type Harness } from './helpers';

let h: Harness;
afterEach(() => h.close());

const PRICES: Record<string, PricingRates> = { 'openai/big': { cache_read: 1, cache_write: 2, output: 10 } };
const c = (cache_read: number, cache_write: number, output: number): TokenCounts => ({ cache_read, cache_write, output, total: cache_read + cache_write + output });
const DAY1 = new Date(2027, 2, 1, 12).getTime();
const DAY2 = new Date(2027, 2, 2, 12).getTime();

beforeEach(async () => {
  h = await startHarness({ pricing: (_p, provider, model) => PRICES[`${provider}/${model}`] });
  for (const id of ['s1', 's2']) await h.store.createSession({ session_id: id, project_id: 'p', agent_id: 'a' });
  const rec = (ts: number, session_id: string, route: string, model_id: string, counts: TokenCounts) =>
    h.store.recordUsage({ ts, project_id: 'p', agent_id: 'a', session_id, route, platform: 'telegram', provider: 'openai', model_id, counts });
  await rec(DAY1, 's1', 'default', 'big', c(1_000_000, 0, 100_000));
  await rec(DAY1, 's1', 'default', 'small', c(0, 500, 50));
  await rec(DAY2, 's2', 'ops', 'big', c(0, 1_000_000, 0));
});

describe('GET /api/usage', () => {
  it('groups by day with cost and a total', async () => {
    const r = await h.call('/api/usage?group=day');
    expect(r.status).toBe(200);
    expect(r.body.group).toBe('day');
    expect(r.body.groups.map((g: any) => [g.key, g.output, g.cost, g.hasUncosted])).toEqual([
      [localDate(DAY1), 100_050, 2, true],
      [localDate(DAY2), 0, 2, false],
    ]);
    expect(r.body.total).toMatchObject({ requests: 3, cost: 4, hasUncosted: true });
  });

  it('groups by model, route and session', async () => {
    const byModel = await h.call('/api/usage?group=model');
    expect(byModel.body.groups.map((g: any) => [g.key, g.cost])).toEqual([['openai/big', 4], ['openai/small', null]]);
    const byRoute = await h.call('/api/usage?group=route');
    expect(byRoute.body.groups.map((g: any) => [g.key, g.requests])).toEqual([['default', 2], ['ops', 1]]);
    const bySession = await h.call('/api/usage?group=session');
    expect(bySession.body.groups.map((g: any) => g.key)).toEqual(['s1', 's2']);
  });

  it('limits to a date range and filters by route', async () => {
    const r = await h.call(`/api/usage?group=model&from=${localDate(DAY2)}&to=${localDate(DAY2)}`);
    expect(r.body.groups.map((g: any) => g.key)).toEqual(['openai/big']);
    expect(r.body.total.cost).toBe(2);
    expect(r.body).toMatchObject({ from: localDate(DAY2), to: localDate(DAY2) });
    const ops = await h.call('/api/usage?group=session&route=ops');
    expect(ops.body.groups.map((g: any) => g.key)).toEqual(['s2']);
  });

  it.each([
    ['group=week', 'query.group: expected one of day|model|route|session|project|platform|user, found "week"'],
    ['from=2027-3-1', 'query.from: expected a date YYYY-MM-DD, found "2027-3-1"'],
    ['from=2026-02-31', 'query.from: expected a real calendar date YYYY-MM-DD, found "2026-02-31"'],
    ['to=2026-13-01', 'query.to: expected a real calendar date YYYY-MM-DD, found "2026-13-01"'],
    ['from=2027-03-05&to=2027-03-01', 'query.from: expected a date on or before query.to (2027-03-01), found "2027-03-05"'],
  ])('answers ?%s with 400 naming the field', async (qs, message) => {
    const r = await h.call(`/api/usage?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: 'bad_request', message } });
  });
});
