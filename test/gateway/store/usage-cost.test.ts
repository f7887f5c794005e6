/** Usage rows (token_usage and failed request_end), session totals, grouped sums and query-time cost. */
import * as b from '../../../src/core/omnimessage/builders';
import { costOf, costUsage, localDate, usageReport, usageRowFromMessage, type GatewayStore, type PricingLookup, type UsageAttribution } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';

describeBackends('usage and cost', (backend) => {
  let t: TestStore;
  let store: GatewayStore;
  beforeEach(async () => {
    t = await openTestStore(backend);
    store = t.store;
    await store.createSession({ session_id: TOP, project_id: 'p1', agent_id: 'a', route: 'slack:T1', platform: 'slack' });
    await store.createSession({ session_id: CHILD, project_id: 'p1', agent_id: 'a', parent_session_id: TOP });
  });
  afterEach(() => {
    b.setMessageClock();
    return t.cleanup();
  });

  const TOP = 'session-2027-02-01-10-00-00-11111111';
  const CHILD = 'session-2027-02-01-10-01-00-22222222';
  const counts = (cache_read: number, cache_write: number, output: number) => ({ cache_read, cache_write, output, total: cache_read + cache_write + output });
  const who: UsageAttribution = { project_id: 'p1', agent_id: 'a', session_id: TOP, route: 'slack:T1', platform: 'slack', provider: 'openai', model_id: 'gpt-a' };

  describe('usageRowFromMessage', () => {
    it('makes a row from token_usage request counts and a zero-token row from a non-completed request_end', () => {
      b.setMessageClock(() => new Date('2027-02-01T10:00:05.000Z'));
      const u = usageRowFromMessage(b.tokenUsage(counts(100, 100, 100), counts(10, 20, 30)), who);
      expect(u).toEqual({ ...who, ts: Date.parse('2027-02-01T10:00:05.000Z'), counts: counts(10, 20, 30), status: 'completed' });
      expect(usageRowFromMessage(b.requestEnd('timeout', { attempt: 1, retry_in_ms: 2000 }), who)).toEqual({ ...who, ts: Date.parse('2027-02-01T10:00:05.000Z'), status: 'timeout' });
      expect(usageRowFromMessage(b.requestEnd('completed'), who)).toBeUndefined();
      expect(usageRowFromMessage(b.assistantText('hi'), who)).toBeUndefined();
    });
  });

  describe('usage rows', () => {
    it('are stored with their local date and add to the session and subagent totals', async () => {
      const ts = Date.parse('2027-02-01T10:00:05.000Z');
      const r1 = await store.recordUsage({ ...who, ts, counts: counts(10, 20, 30) });
      expect(r1).toMatchObject({ ...counts(10, 20, 30), date: localDate(ts), status: 'completed', origin_session_id: null, route: 'slack:T1' });
      await store.recordUsage({ ...who, ts: ts + 1, origin_session_id: CHILD, counts: counts(1, 2, 3) });
      const failed = await store.recordUsage({ ...who, ts: ts + 2, status: 'timeout' });
      expect(failed).toMatchObject({ ...counts(0, 0, 0), status: 'timeout' });

      expect(await store.getSession(TOP)).toMatchObject(counts(11, 22, 33));
      expect(await store.getSession(CHILD)).toMatchObject(counts(1, 2, 3));
      expect((await store.listUsage({ session_id: TOP })).map((r) => r.status)).toEqual(['completed', 'completed', 'timeout']);
      expect(await store.listUsage({ limit: 1 })).toHaveLength(1);
    });

    it('sum by group, model and date with request and failure counts', async () => {
      const day1 = new Date(2027, 1, 1, 12).getTime();
      const day2 = new Date(2027, 1, 2, 12).getTime();
      await store.recordUsage({ ...who, ts: day1, counts: counts(100, 0, 10) });
      await store.recordUsage({ ...who, ts: day1 + 1, model_id: 'gpt-b', counts: counts(0, 50, 5) });
      await store.recordUsage({ ...who, ts: day2, counts: counts(200, 0, 20) });
      await store.recordUsage({ ...who, ts: day2 + 1, status: 'failed' });
      await store.recordUsage({ ...who, ts: day2 + 2, project_id: 'p2', route: null, counts: counts(7, 0, 0) });

      const byDate = await store.sumUsage('date', { project_id: 'p1' });
      expect(byDate.map((s) => [s.key, s.model_id, s.total, s.requests, s.failures])).toEqual([
        ['2027-02-01', 'gpt-a', 110, 1, 0],
        ['2027-02-01', 'gpt-b', 55, 1, 0],
        ['2027-02-02', 'gpt-a', 220, 1, 1],
      ]);
      const byModel = await store.sumUsage('model');
      expect(byModel.map((s) => [s.key, s.project_id, s.total])).toEqual([
        ['openai/gpt-a', 'p1', 330],
        ['openai/gpt-a', 'p2', 7],
        ['openai/gpt-b', 'p1', 55],
      ]);
      expect((await store.sumUsage('route')).map((s) => [s.key, s.total])).toEqual([['', 7], ['slack:T1', 330], ['slack:T1', 55]]);
      expect((await store.sumUsage('all', { from_date: '2027-02-02', to_date: '2027-02-02', platform: 'slack' })).map((s) => s.total)).toEqual([220, 7]);
    });
  });

  describe('cost', () => {
    const prices: PricingLookup = (project, provider, model) => (model === 'gpt-a' ? { cache_read: 0.5, cache_write: 2, output: 8 } : undefined);

    it('is Σ tokens × price / 1e6 over the three priced buckets', () => {
      expect(costOf(counts(1_000_000, 500_000, 250_000), { cache_read: 0.5, cache_write: 2, output: 8 })).toBeCloseTo(0.5 + 1 + 2, 10);
    });

    it('is computed at query time, once per model, with unpriced tokens flagged', async () => {
      const ts = new Date(2027, 1, 1, 12).getTime();
      await store.recordUsage({ ...who, ts, counts: counts(1_000_000, 0, 100_000) });
      await store.recordUsage({ ...who, ts: ts + 1, counts: counts(0, 1_000_000, 0) });
      await store.recordUsage({ ...who, ts: ts + 2, model_id: 'gpt-b', counts: counts(0, 0, 1000) });
      await store.recordUsage({ ...who, ts: ts + 3, model_id: 'gpt-c', status: 'auth' });
      const calls: string[] = [];
      const lookup: PricingLookup = async (p, prov, m) => {
        calls.push(`${p}/${prov}/${m}`);
        return prices(p, prov, m);
      };
      const report = await usageReport(store, 'model', {}, lookup);
      expect(calls.sort()).toEqual(['p1/openai/gpt-a', 'p1/openai/gpt-b', 'p1/openai/gpt-c']);
      const a = report.groups.find((g) => g.key === 'openai/gpt-a')!;
      expect(a.cost).toBeCloseTo(0.5 + 0.8 + 2, 10);
      expect(a).toMatchObject({ hasUncosted: false, requests: 2, failures: 0 });
      expect(report.groups.find((g) => g.key === 'openai/gpt-b')).toMatchObject({ cost: null, hasUncosted: true, output: 1000 });
      // A failed request has no tokens, so its missing price changes nothing.
      expect(report.groups.find((g) => g.key === 'openai/gpt-c')).toMatchObject({ cost: null, hasUncosted: false, failures: 1 });
      expect(report.total.cost).toBeCloseTo(3.3, 10);
      expect(report.total).toMatchObject({ hasUncosted: true, requests: 3, failures: 1 });

      const free = await costUsage([], prices);
      expect(free.total).toMatchObject({ cost: null, hasUncosted: false, total: 0 });
    });
  });

  describe('replaceUsage', () => {
    it('replaces the rows of a top-level session and recomputes its and its subagents totals', async () => {
      await store.recordUsage({ ...who, ts: 1, counts: counts(5, 5, 5) });
      await store.recordUsage({ ...who, ts: 2, origin_session_id: CHILD, counts: counts(9, 9, 9) });
      await store.replaceUsage([TOP], [
        { ...who, ts: 3, counts: counts(1, 0, 0) },
        { ...who, ts: 4, origin_session_id: CHILD, counts: counts(0, 1, 0) },
      ]);
      expect((await store.listUsage()).map((r) => r.ts)).toEqual([3, 4]);
      expect(await store.getSession(TOP)).toMatchObject(counts(1, 1, 0));
      expect(await store.getSession(CHILD)).toMatchObject(counts(0, 1, 0));
      await store.replaceUsage([TOP], []);
      expect(await store.listUsage()).toEqual([]);
      expect(await store.getSession(TOP)).toMatchObject(counts(0, 0, 0));
      expect(await store.getSession(CHILD)).toMatchObject(counts(0, 0, 0));
    });
  });
});
