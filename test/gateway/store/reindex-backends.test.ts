/**
 * One data root, two indexes: reindexing the same traces and journal into an empty SQLite file and into an
 * empty PostgreSQL database gives the same sessions, usage (rows and every grouping), bindings, Tasks,
 * pairing, allowlist, admin tokens and schedule grants. This is also how an index moves to PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { journaled, JournalFile, journalPath, reindexFromFiles, type IndexStore, type UsageGroupBy } from '../../../src/gateway/store';
import { describePostgres, sqliteBackend, tempDir } from './helpers';
import { buildTraces, CHILD, OTHER, TOP } from './trace-fixture';

const GROUPS: (UsageGroupBy | 'all')[] = ['all', 'date', 'project', 'agent', 'session', 'route', 'platform', 'model', 'user'];

/** Everything a reindex restores, without the columns that record when the row was written. */
async function contents(s: IndexStore) {
  const sessions = (await s.listSessions({ include_subagents: true })).map(({ updated_at: _, ...r }) => r);
  return {
    sessions,
    usage: (await s.listUsage()).map(({ id: _, ...r }) => r),
    sums: await Promise.all(GROUPS.map((g) => s.sumUsage(g))),
    bindings: await Promise.all(sessions.map((r) => s.bindingsOf(r.session_id))),
    tasks: await Promise.all(sessions.map((r) => s.listTaskRuns({ session_id: r.session_id }))),
    pairings: await s.listPairings(),
    allowed: await s.listAllowed(),
    tokens: await s.listAdminTokens(),
    grants: await s.listScheduleGrants(),
  };
}

describePostgres('reindex into either backend', (postgres) => {
  it('gives the same index from the same files', async () => {
    const dir = tempDir('pg-reindex-');
    const home = join(dir, 'home');
    await buildTraces(home);
    const at = Date.parse('2027-03-02T20:00:00.000Z');
    // What the live gateway journaled about those sessions, through a SQLite index.
    const live = await (await sqliteBackend.target(dir)).open({ now: () => at });
    const store = journaled(live, new JournalFile(journalPath(home)), () => at);
    await store.restoreSession({ session_id: TOP, project_id: 'proj', agent_id: 'agentA', route: 'slack:T1:C1', platform: 'slack', binding_key: 'slack:T1:C1:-', title: 'Hello', approval_mode: 'always-ask', created_at: at - 1 });
    await store.bind('slack:T1:C1:-', TOP);
    await store.recordTaskRun({ task_id: 'task-1', session_id: TOP, requester: 'slack:U1', started_at: Date.parse('2027-03-01T09:00:00.000Z') });
    await store.recordUsage({ ts: at, project_id: 'proj', agent_id: 'agentA', session_id: TOP, route: 'slack:T1:C1', platform: 'slack', provider: 'openai', model_id: 'titler', counts: { cache_read: 0, cache_write: 9, output: 2, total: 11 }, untraced: true });
    const { row } = await store.requestPairing({ platform: 'telegram', user_id: '42', user_name: 'ann', chat: 'telegram:42:-', expires_at: at + 60_000 });
    await store.decidePairing(row.code, 'approved', 'admin');
    await store.allowUser('discord', '123456789012345678', 'admin', at, 'group');
    await store.addAdminTokenHash('ab'.repeat(32), at);
    await store.setScheduleGrant({ project_id: 'proj', agent_id: 'agentA', schedule_name: 'digest', approval_mode: 'allow-all', definition_hash: 'h1', granted_by: 'web:admin', granted_at: at });
    await live.close();

    const intoSqlite = await (await sqliteBackend.target(dir)).open({ now: () => at });
    const intoPostgres = await (await postgres.target(dir)).open({ now: () => at });
    try {
      const [a, b] = [await reindexFromFiles(intoSqlite, { home, now: () => at }), await reindexFromFiles(intoPostgres, { home, now: () => at })];
      expect(b).toEqual(a);
      expect(a).toMatchObject({ sessions: 3, subagentSessions: 1, journalEntries: 9 });
      const [x, y] = [await contents(intoSqlite), await contents(intoPostgres)];
      expect(y).toEqual(x);
      expect(x.sessions.map((s) => s.session_id).sort()).toEqual([CHILD, OTHER, TOP].sort());
      expect(x.usage.some((u) => u.user_id === 'slack:U1')).toBe(true);
      expect(x.bindings.flat()).toEqual(['slack:T1:C1:-']);
    } finally {
      await intoSqlite.close();
      await intoPostgres.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
