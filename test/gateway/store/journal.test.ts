/**
 * The gateway journal: the file format (0600, one line per entry, a torn tail healed, bad lines reported),
 * one descriptor held while it writes and let go once it rests,
 * what the journaled store writes for each change (and that no-ops write nothing), and a reindex into an
 * empty database restoring every journaled fact: sessions' own columns, bindings, title-call usage,
 * pairing, allowlist, admin tokens, schedule grants, deletions.
 */
import { appendFileSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { journaled, JournalFile, journalPath, reindexFromFiles, type GatewayStore, type IndexStore, type JournalEntry } from '../../../src/gateway/store';
import { describeBackends, tempDir } from './helpers';

let dir: string;
let journal: JournalFile;
const entries = async (): Promise<JournalEntry[]> => (await journal.read()).entries;

describe('journal file', () => {
  beforeEach(() => {
    dir = tempDir('pg-journal-');
    journal = new JournalFile(journalPath(dir));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds one descriptor across appends and lets it go once no write comes for its hold time', async () => {
    const held = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === journal.path;
      } catch {
        return false;
      }
    }).length;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const j = new JournalFile(journal.path, 300);
    await j.append({ t: 'unbind', at: 1, binding_key: 'web:a' });
    await j.appendAll([{ t: 'unbind', at: 2, binding_key: 'web:b' }, { t: 'unbind', at: 3, binding_key: 'web:c' }]);
    expect(held()).toBe(1);
    for (let i = 0; i < 200 && held() > 0; i++) await sleep(10);
    expect(held()).toBe(0);
    await j.append({ t: 'unbind', at: 4, binding_key: 'web:d' });
    expect((await j.read()).entries.map((e) => e.at)).toEqual([1, 2, 3, 4]);
    for (let i = 0; i < 200 && held() > 0; i++) await sleep(10);
    expect(held()).toBe(0);
  });

  it('is private, one JSON line per entry, and heals a torn last line before appending', async () => {
    await journal.append({ t: 'unbind', at: 1, binding_key: 'web:a' });
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
    appendFileSync(journal.path, '{"t":"bind","at":2,"binding');
    const reopened = new JournalFile(journal.path);
    expect((await reopened.read()).problems).toEqual([]);
    await reopened.append({ t: 'unbind', at: 3, binding_key: 'web:b' });
    const r = await reopened.read();
    expect(r.entries).toEqual([{ t: 'unbind', at: 1, binding_key: 'web:a' }, { t: 'unbind', at: 3, binding_key: 'web:b' }]);
    expect(r.problems).toEqual([{ path: journal.path, message: 'line 2 is not JSON; skipped' }]);
  });

  it('reports lines that are not journal entries, with their number and what is wrong', async () => {
    writeFileSync(journal.path, '{"t":"bind","at":1,"binding_key":"k","session_id":"s"}\n{"t":"teleport","at":2}\n{"t":"unbind","at":"soon","binding_key":"k"}\n');
    const r = await journal.read();
    expect(r.entries).toHaveLength(1);
    expect(r.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^line 2: t: /), expect.stringMatching(/^line 3: at: .*; skipped$/)]);
  });

  it('reads an absent journal as empty', async () => {
    expect(await new JournalFile(join(dir, 'nope.jsonl')).read()).toEqual({ entries: [], problems: [] });
  });
});


describeBackends('journal', (backend) => {
  let index: IndexStore;
  let store: GatewayStore;
  let t: number;
  let opened: IndexStore[];
  beforeEach(async () => {
    dir = tempDir('pg-journal-');
    t = 1_800_000_000_000;
    index = await (await backend.target(dir)).open({ now: () => t });
    opened = [index];
    journal = new JournalFile(journalPath(dir));
    store = journaled(index, journal, () => t);
  });
  afterEach(async () => {
    for (const s of opened) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Another, empty database to rebuild into. */
  const fresh = async (): Promise<IndexStore> => {
    const s = await (await backend.target(dir)).open({ now: () => t });
    opened.push(s);
    return s;
  };

  describe('journaled store', () => {
    const SID = 'session-2027-01-15-08-00-00-aaaaaaaa';
    const session = () => store.createSession({ session_id: SID, project_id: 'p', agent_id: 'a', route: 'default', platform: 'web', binding_key: 'web:c1', approval_mode: 'read-only', created_at: t });

    it('writes each durable change once it is in the index, and nothing for reads, no-ops or coordination state', async () => {
      await session();
      await store.bind('web:c1', SID);
      await store.updateSession(SID, { status: 'running', last_active_at: t + 5, platform_problem: 'x' });
      await store.updateSession(SID, { title: 'Bananas', approval_mode: 'always-ask' });
      await store.updateSession('session-2027-01-15-08-00-00-ffffffff', { title: 'nobody' });
      expect(await store.unbind('web:none')).toBe(false);
      await store.unbind('web:c1');
      await store.getSession(SID);
      expect(await entries()).toEqual([
        { t: 'session', at: t, session_id: SID, project_id: 'p', agent_id: 'a', route: 'default', platform: 'web', binding_key: 'web:c1', title: null, approval_mode: 'read-only', created_at: t },
        { t: 'bind', at: t, binding_key: 'web:c1', session_id: SID },
        { t: 'session_patch', at: t, session_id: SID, title: 'Bananas', approval_mode: 'always-ask' },
        { t: 'unbind', at: t, binding_key: 'web:c1' },
      ]);
    });

    it('journals only usage no trace holds', async () => {
      await session();
      const base = { ts: t, project_id: 'p', agent_id: 'a', session_id: SID, provider: 'openai', model_id: 'm', counts: { cache_read: 0, cache_write: 3, output: 2, total: 5 } };
      await store.recordUsage(base);
      await store.recordUsage({ ...base, untraced: true });
      expect((await entries()).filter((e) => e.t === 'usage')).toEqual([{ t: 'usage', at: t, row: base }]);
    });

    it('journals pairing requests, decisions (with the allowlisting they imply) and the allowlist', async () => {
      const { row } = await store.requestPairing({ platform: 'telegram', user_id: '42', user_name: 'ann', chat: 'telegram:42:-', expires_at: t + 60_000 });
      expect((await store.requestPairing({ platform: 'telegram', user_id: '42', expires_at: t + 60_000 })).created).toBe(false);
      t += 1000;
      await store.decidePairing(row.code, 'approved', 'admin');
      expect(await store.allowUser('telegram', '42', 'admin')).toBe(false);
      await store.allowUser('slack', 'T1', 'admin', undefined, 'group');
      await store.disallowUser('slack', 'T1', 'group');
      expect(await store.disallowUser('slack', 'T1', 'group')).toBe(false);
      expect((await entries()).map((e) => e.t)).toEqual(['pairing', 'pairing', 'allow', 'allow', 'disallow']);
      expect((await entries())[1]).toMatchObject({ t: 'pairing', row: { code: row.code, state: 'approved', decided_at: t } });
    });
  });

  describe('reindex replays the journal', () => {
    const A = 'session-2027-01-15-08-00-00-aaaaaaaa';
    const B = 'session-2027-01-15-08-05-00-bbbbbbbb';
    const C = 'session-2027-01-15-08-09-00-cccccccc';

    it('restores into an empty database exactly what the live index held', async () => {
      await store.createSession({ session_id: A, project_id: 'p', agent_id: 'a', route: 'ops', platform: 'telegram', binding_key: 'telegram:1:-', approval_mode: 'read-only' });
      await store.bind('telegram:1:-', A);
      await store.updateSession(A, { title: 'First', approval_mode: 'allow-all' });
      t += 10;
      // `/new`: the conversation moves on to B; A keeps its title and mode but is no longer bound.
      await store.unbind('telegram:1:-');
      await store.createSession({ session_id: B, project_id: 'p', agent_id: 'a', route: 'ops', platform: 'telegram', binding_key: 'telegram:1:-', approval_mode: 'read-only' });
      await store.bind('telegram:1:-', B);
      await store.createSession({ session_id: C, project_id: 'p', agent_id: 'a', route: 'ops', platform: 'telegram', binding_key: 'telegram:2:-' });
      await store.bind('telegram:2:-', C);
      await store.deleteSession(C);
      await store.recordUsage({ ts: t, project_id: 'p', agent_id: 'a', session_id: B, route: 'ops', platform: 'telegram', provider: 'openai', model_id: 'm', counts: { cache_read: 0, cache_write: 7, output: 3, total: 10 }, untraced: true });
      const { row } = await store.requestPairing({ platform: 'telegram', user_id: '9', chat: 'telegram:9:-', expires_at: t + 1000 });
      await store.decidePairing(row.code, 'denied', null);
      const pending = (await store.requestPairing({ platform: 'telegram', user_id: '10', expires_at: t + 1000 })).row;
      await store.allowUser('discord', '123456789012345678', 'admin');
      await store.addAdminTokenHash('h1');
      await store.addAdminTokenHash('h2');
      await store.revokeAdminTokenHash('h1');
      const grant = { project_id: 'p', agent_id: 'a', schedule_name: 'digest', approval_mode: 'allow-all' as const, definition_hash: 'abc123', granted_by: 'web:admin', granted_at: t };
      await store.setScheduleGrant(grant);
      await store.setScheduleGrant({ ...grant, approval_mode: 'read-only', definition_hash: 'def456', granted_at: t + 1 });
      // Run history and watermarks are the index's own: not journaled, not restored.
      await store.addScheduleRun({ project_id: 'p', agent_id: 'a', schedule_name: 'digest' }, 1, 'missed');
      await store.markSchedulesWatched([{ project_id: 'p', agent_id: 'a', schedule_name: 'digest' }], t);
      expect((await entries()).filter((e) => e.t === 'schedule_grant')).toHaveLength(2);

      const rebuilt = await fresh();
      const r = await reindexFromFiles(rebuilt, { home: dir, now: () => t });
      expect(r.problems).toEqual([]);
      expect(r.journalEntries).toBe((await entries()).length);
      const strip = ({ updated_at: _, ...row }: { updated_at: number }) => row;
      expect((await rebuilt.listSessions()).map(strip)).toEqual((await index.listSessions()).map(strip));
      expect((await rebuilt.getSession(A))?.binding_key).toBeNull();
      expect(await rebuilt.resolveBinding('telegram:1:-')).toBe(B);
      expect(await rebuilt.resolveBinding('telegram:2:-')).toBeUndefined();
      expect(await rebuilt.getSession(C)).toBeUndefined();
      expect((await rebuilt.listUsage()).map(({ id: _, ...u }) => u)).toEqual((await index.listUsage()).map(({ id: _, ...u }) => u));
      expect(await rebuilt.getPairing(row.code)).toEqual({ ...(await index.getPairing(row.code))!, notified_at: t });
      expect((await rebuilt.getPairing(pending.code))?.state).toBe('pending');
      expect(await rebuilt.listAllowed()).toEqual(await index.listAllowed());
      expect(await rebuilt.listAdminTokens()).toEqual(await index.listAdminTokens());
      expect(await rebuilt.listScheduleGrants()).toEqual([{ ...grant, approval_mode: 'read-only', definition_hash: 'def456', granted_at: t + 1 }]);
      expect(await rebuilt.listScheduleRuns()).toEqual([]);
      // Twice gives the same.
      await reindexFromFiles(rebuilt, { home: dir, now: () => t });
      expect((await rebuilt.listSessions()).map(strip)).toEqual((await index.listSessions()).map(strip));
      expect(await rebuilt.listUsage()).toHaveLength(1);
      await rebuilt.close();
    });

    it('gives each usage row the requester of its Task, live and rebuilt alike', async () => {
      await store.createSession({ session_id: A, project_id: 'p', agent_id: 'a', route: 'r', platform: 'telegram' });
      const use = (ts: number, untraced = false) => store.recordUsage({ ts, project_id: 'p', agent_id: 'a', session_id: A, provider: 'o', model_id: 'm', counts: { cache_read: 0, cache_write: 1, output: 1, total: 2 }, untraced });
      await use(t - 1, true);
      await store.recordTaskRun({ task_id: 'task-1', session_id: A, requester: 'telegram:1', started_at: t });
      await use(t + 5, true);
      await store.recordTaskRun({ task_id: 'task-2', session_id: A, requester: 'telegram:2', started_at: t + 10 });
      await use(t + 10, true);
      await use(t + 11, true);
      expect((await index.listUsage()).map((u) => u.user_id)).toEqual([null, 'telegram:1', 'telegram:2', 'telegram:2']);
      expect((await index.sumUsage('user')).map((g) => [g.key, g.requests])).toEqual([['', 1], ['telegram:1', 1], ['telegram:2', 2]]);
      const rebuilt = await fresh();
      await reindexFromFiles(rebuilt, { home: dir, now: () => t });
      expect((await rebuilt.listUsage()).map((u) => u.user_id)).toEqual([null, 'telegram:1', 'telegram:2', 'telegram:2']);
      expect(await rebuilt.listTaskRuns({ session_id: A })).toEqual(await index.listTaskRuns({ session_id: A }));
      await rebuilt.close();
    });

    it('reports an entry that cannot be applied and goes on', async () => {
      writeFileSync(journalPath(dir), `${JSON.stringify({ t: 'bind', at: 1, binding_key: 'web:x', session_id: A })}\n${JSON.stringify({ t: 'allow', at: 2, platform: 'web', kind: 'user', user_id: 'u', added_by: null })}\n`);
      const rebuilt = await fresh();
      const r = await reindexFromFiles(rebuilt, { home: dir });
      expect(r.journalEntries).toBe(1);
      expect(r.problems).toEqual([{ message: expect.stringMatching(/^journal entry bind at 1970-01-01T00:00:00.001Z not applied: /) }]);
      expect(await rebuilt.isAllowed('web', 'u')).toBe(true);
      await rebuilt.close();
      expect(readFileSync(journalPath(dir), 'utf8').split('\n')).toHaveLength(3);
    });
  });
});
