/**
 * reindexFromFiles over a hand-built data root: session rows and usage rows match the traces'
 * token_usage / request_end events (subagent usage attributed to the top-level session), the gateway's
 * own columns survive, stale rows are replaced, unreadable traces are reported, and a rerun changes nothing.
 */
import { join } from 'node:path';
import type { TokenCounts } from '../../../src/core/omnimessage/types';
import { reindexFromFiles, type SessionRow, type UsageRow } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';
import { buildTraces, c, C1, C2, C3, C4, C5, CHILD, OTHER, TOP } from './trace-fixture';

describeBackends('reindex', (backend) => {
  let t: TestStore;
  let home: string;
  beforeEach(async () => {
    t = await openTestStore(backend);
    home = join(t.dir, 'home');
  });
  afterEach(() => t.cleanup());

  const sum = (rows: UsageRow[]) => rows.reduce((a, r) => ({ cache_read: a.cache_read + r.cache_read, cache_write: a.cache_write + r.cache_write, output: a.output + r.output, total: a.total + r.total }), c(0, 0, 0));
  const addAll = (...cs: TokenCounts[]) => cs.reduce((a, x) => ({ cache_read: a.cache_read + x.cache_read, cache_write: a.cache_write + x.cache_write, output: a.output + x.output, total: a.total + x.total }), c(0, 0, 0));
  const strip = (rows: UsageRow[]) => rows.map(({ id: _id, ...r }) => r);
  const stripSession = (rows: SessionRow[]) => rows.map(({ updated_at: _u, ...r }) => r);

  describe('reindexFromFiles', () => {
    it('rebuilds sessions and usage from traces, idempotently', async () => {
      const otherEnd = await buildTraces(home);
      const { store } = t;
      // What the live gateway knew: the route and title, plus a usage row the reindex must replace.
      await store.createSession({ session_id: TOP, project_id: 'proj', agent_id: 'agentA', route: 'slack:T1:C1', platform: 'slack', title: 'Hello', approval_mode: 'always-ask' });
      await store.recordUsage({ ts: 1, project_id: 'proj', agent_id: 'agentA', session_id: TOP, provider: 'openai', model_id: 'big-model', counts: c(9, 9, 9) });

      const report = await reindexFromFiles(store, { home });
      expect(report).toMatchObject({ sessions: 3, subagentSessions: 1, usageRows: 7 });
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0].message).toMatch(/session_meta/);

      const topRows = await store.listUsage({ session_id: TOP });
      expect(topRows.map((r) => [r.origin_session_id, r.model_id, r.status, r.total])).toEqual([
        [null, 'big-model', 'completed', C1.total],
        [null, 'big-model', 'timeout', 0],
        [null, 'big-model', 'completed', C2.total],
        [null, 'big-model', 'completed', C3.total],
        [CHILD, 'small-model', 'completed', C4.total],
      ]);
      expect(topRows.every((r) => r.route === 'slack:T1:C1' && r.platform === 'slack' && r.project_id === 'proj' && r.agent_id === 'agentA')).toBe(true);
      expect(sum(topRows)).toEqual(addAll(C1, C2, C3, C4));

      const otherRows = await store.listUsage({ session_id: OTHER });
      expect(otherRows.map((r) => [r.project_id, r.agent_id, r.status, r.total, r.route])).toEqual([
        ['proj2', 'agentB', 'completed', C5.total, null],
        ['proj2', 'agentB', 'auth', 0, null],
      ]);

      const topSession = await store.getSession(TOP);
      expect(topSession).toMatchObject({ ...addAll(C1, C2, C3, C4), route: 'slack:T1:C1', title: 'Hello', approval_mode: 'always-ask', parent_session_id: null });
      expect(topSession!.created_at).toBe(Date.parse('2027-03-01T09:00:01.000Z'));
      expect(await store.getSession(CHILD)).toMatchObject({ ...C4, parent_session_id: TOP, project_id: 'proj', agent_id: 'agentA' });
      expect(await store.getSession(OTHER)).toMatchObject({ ...C5, project_id: 'proj2', agent_id: 'agentB', route: null });
      expect((await store.getSession(OTHER))!.last_active_at).toBe(otherEnd);

      const usageBefore = strip(await store.listUsage());
      const sessionsBefore = stripSession(await store.listSessions({ include_subagents: true }));
      const again = await reindexFromFiles(store, { home });
      expect(again).toEqual(report);
      expect(strip(await store.listUsage())).toEqual(usageBefore);
      expect(stripSession(await store.listSessions({ include_subagents: true }))).toEqual(sessionsBefore);
    });

    it('reports nothing for a data root that does not exist', async () => {
      expect(await reindexFromFiles(t.store, { home: join(t.dir, 'missing') })).toEqual({ sessions: 0, subagentSessions: 0, usageRows: 0, journalEntries: 0, problems: [] });
    });
  });
});
