/**
 * reindexFromFiles over a hand-built data root: session rows and usage rows match the traces'
 * token_usage / request_end events (subagent usage attributed to the top-level session), the gateway's
 * own columns survive, stale rows are replaced, unreadable traces are reported, and a rerun changes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { TokenCounts } from '../../../src/core/omnimessage/types';
import { TraceWriter, tracesDir } from '../../../src/core/trace';
import { reindexFromFiles, type SessionRow, type UsageRow } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';

const TOP = 'session-2027-03-01-09-00-00-aaaaaaaa';
const CHILD = 'session-2027-03-01-09-00-30-bbbbbbbb';
const OTHER = 'session-2027-03-02-18-30-00-cccccccc';

describeBackends('reindex', (backend) => {
  let t: TestStore;
  let home: string;
  let tick: number;
  beforeEach(async () => {
    t = await openTestStore(backend);
    home = join(t.dir, 'home');
    tick = Date.parse('2027-03-01T09:00:00.000Z');
    b.setMessageClock(() => new Date((tick += 1000)));
  });
  afterEach(() => {
    b.setMessageClock();
    return t.cleanup();
  });

  const c = (cache_read: number, cache_write: number, output: number): TokenCounts => ({ cache_read, cache_write, output, total: cache_read + cache_write + output });
  const meta = (session_id: string, model_id: string, source?: 'subagent') =>
    b.sessionMeta({ session_id, provider: 'openai', model_id, model_context_window: 128000, system_prompt: 'sys', agent_state: '/state', workspace: '/ws', ...(source ? { source } : {}) });

  const C1 = c(0, 1200, 80);
  const C2 = c(1100, 300, 40);
  const C3 = c(0, 500, 10);
  const C4 = c(50, 60, 7);
  const C5 = c(3, 4, 5);

  /** Writes the traces; returns the time of OTHER's last record. */
  async function buildTraces(): Promise<number> {
    const dirA = tracesDir(home, 'proj', 'agentA');
    const top = new TraceWriter({ tracesDir: dirA, sessionId: TOP });
    for (const m of [
      meta(TOP, 'big-model'),
      b.toolListReady([]),
      b.userText('hello'),
      b.requestBegin(),
      b.assistantText('hi'),
      b.tokenUsage(C1, C1),
      b.requestEnd('completed'),
      b.userText('use a subagent'),
      b.requestBegin(),
      b.requestEnd('timeout', { attempt: 1, retry_in_ms: 2000, error_message: 'idle timeout' }),
      b.requestBegin(),
      b.toolCall({ name: 'run_subagent', arguments: '{}', tool_call_id: 'call_1' }),
      b.tokenUsage(c(1100, 1500, 120), C2),
      b.requestEnd('completed'),
      b.subagent(CHILD),
    ]) top.append(m);
    await top.rotate([meta(TOP, 'big-model'), b.toolListReady([])]);
    for (const m of [b.requestBegin(), b.tokenUsage(C3, C3), b.requestEnd('completed')]) top.append(m);
    await top.flush();

    const child = new TraceWriter({ tracesDir: dirA, sessionId: CHILD });
    for (const m of [meta(CHILD, 'small-model', 'subagent'), b.text('user', 'do it', { sender: 'parent_agent' }), b.requestBegin(), b.tokenUsage(C4, C4), b.requestEnd('completed')]) child.append(m);
    await child.flush();

    const other = new TraceWriter({ tracesDir: tracesDir(home, 'proj2', 'agentB'), sessionId: OTHER });
    for (const m of [meta(OTHER, 'big-model'), b.requestBegin(), b.tokenUsage(C5, C5), b.requestEnd('completed'), b.requestBegin(), b.requestEnd('auth', { error_message: '401' })]) other.append(m);
    await other.flush();
    const otherEnd = tick;

    // Noise the walk must survive: a stray file at the root, an agent without traces, a trace with no head.
    writeFileSync(join(home, 'gateway.db-wal'), '');
    mkdirSync(join(home, 'proj2', 'agents', 'empty'), { recursive: true });
    const badDir = join(tracesDir(home, 'proj', 'agentA'), '2027-03-03');
    mkdirSync(badDir, { recursive: true });
    writeFileSync(join(badDir, 'session-2027-03-03-00-00-00-dddddddd_001.jsonl'), JSON.stringify(b.userText('no meta')) + '\n');
    return otherEnd;
  }

  const sum = (rows: UsageRow[]) => rows.reduce((a, r) => ({ cache_read: a.cache_read + r.cache_read, cache_write: a.cache_write + r.cache_write, output: a.output + r.output, total: a.total + r.total }), c(0, 0, 0));
  const addAll = (...cs: TokenCounts[]) => cs.reduce((a, x) => ({ cache_read: a.cache_read + x.cache_read, cache_write: a.cache_write + x.cache_write, output: a.output + x.output, total: a.total + x.total }), c(0, 0, 0));
  const strip = (rows: UsageRow[]) => rows.map(({ id: _id, ...r }) => r);
  const stripSession = (rows: SessionRow[]) => rows.map(({ updated_at: _u, ...r }) => r);

  describe('reindexFromFiles', () => {
    it('rebuilds sessions and usage from traces, idempotently', async () => {
      const otherEnd = await buildTraces();
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
