/** Sessions, bindings and approvals through the GatewayStore interface, on each backend. */
import { APPROVAL_ID_RE, type GatewayStore } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';

describeBackends('sessions and approvals', (backend) => {
  let t: TestStore;
  let store: GatewayStore;
  beforeEach(async () => {
    t = await openTestStore(backend);
    store = t.store;
  });
  afterEach(() => t.cleanup());

  const S1 = 'session-2027-01-15-08-00-00-aaaaaaaa';
  const S2 = 'session-2027-01-15-09-00-00-bbbbbbbb';
  const CHILD = 'session-2027-01-15-09-05-00-cccccccc';

  describe('sessions', () => {
    it('creates with defaults, reads, patches and lists newest first', async () => {
      const a = await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a', route: 'slack:T1', platform: 'slack', binding_key: 'slack:T1:C1:1.0' });
      expect(a).toMatchObject({
        session_id: S1, status: 'idle', approval_mode: 'read-only', title: null, parent_session_id: null,
        created_at: t.clock.t, updated_at: t.clock.t, last_active_at: t.clock.t, cache_read: 0, cache_write: 0, output: 0, total: 0,
      });
      t.clock.t += 1000;
      await store.createSession({ session_id: S2, project_id: 'p', agent_id: 'b', platform: 'telegram', approval_mode: 'always-ask' });
      await store.createSession({ session_id: CHILD, project_id: 'p', agent_id: 'b', parent_session_id: S2 });
      await expect(store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' })).rejects.toMatchObject({ name: 'StoreError', code: 'constraint' });

      t.clock.t += 1000;
      const patched = await store.updateSession(S1, { title: 'Deploy help', status: 'running', approval_mode: 'allow-all', last_active_at: t.clock.t });
      expect(patched).toMatchObject({ title: 'Deploy help', status: 'running', approval_mode: 'allow-all', updated_at: t.clock.t, last_active_at: t.clock.t });
      expect(await store.updateSession('session-2000-01-01-00-00-00-00000000', { title: 'x' })).toBeUndefined();
      await expect(store.updateSession(S1, { approval_mode: 'sometimes' as never })).rejects.toMatchObject({ code: 'constraint' });

      expect((await store.listSessions()).map((s) => s.session_id)).toEqual([S1, S2]);
      expect((await store.listSessions({ include_subagents: true })).map((s) => s.session_id)).toEqual([S1, CHILD, S2]);
      expect((await store.listSessions({ platform: 'telegram' })).map((s) => s.session_id)).toEqual([S2]);
      expect((await store.listSessions({ route: 'slack:T1', status: 'running' })).map((s) => s.session_id)).toEqual([S1]);
      expect((await store.listSessions({ since: t.clock.t })).map((s) => s.session_id)).toEqual([S1]);
      expect((await store.listSessions({ until: t.clock.t })).map((s) => s.session_id)).toEqual([S2]);
      expect((await store.listSessions({ limit: 1, offset: 1 })).map((s) => s.session_id)).toEqual([S2]);
      expect((await store.listSessions({ agent_id: 'a', project_id: 'p' })).map((s) => s.session_id)).toEqual([S1]);
    });

    it('resets sessions a dead process left busy', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a', status: 'running' });
      await store.createSession({ session_id: S2, project_id: 'p', agent_id: 'a', status: 'compacting' });
      await store.createSession({ session_id: CHILD, project_id: 'p', agent_id: 'a' });
      expect(await store.resetBusySessions()).toEqual([S1, S2]);
      expect((await store.getSession(S1))?.status).toBe('idle');
      expect(await store.resetBusySessions()).toEqual([]);
    });

    it('keeps the gateway columns when a trace refreshes a session', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a', route: 'r', title: 'T', approval_mode: 'always-ask' });
      await store.upsertTracedSession({ session_id: S1, project_id: 'p', agent_id: 'a', parent_session_id: null, created_at: 5, last_active_at: 6 });
      expect(await store.getSession(S1)).toMatchObject({ route: 'r', title: 'T', approval_mode: 'always-ask', created_at: 5, last_active_at: t.clock.t });
      await store.upsertTracedSession({ session_id: S2, project_id: 'q', agent_id: 'b', parent_session_id: null, created_at: 7, last_active_at: 8 });
      expect(await store.getSession(S2)).toMatchObject({ project_id: 'q', route: null, status: 'idle', approval_mode: 'read-only', created_at: 7, last_active_at: 8 });
    });
  });

  describe('bindings', () => {
    it('maps a conversation key to the current session and follows a rebind', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' });
      await store.createSession({ session_id: S2, project_id: 'p', agent_id: 'a' });
      const key = 'telegram:42:-';
      expect(await store.resolveBinding(key)).toBeUndefined();
      await store.bind(key, S1);
      expect(await store.resolveBinding(key)).toBe(S1);
      await store.bind(key, S2); // /new: the chat moves on, the old session stays resumable
      expect(await store.resolveBinding(key)).toBe(S2);
      await store.bind('telegram:42:7', S2);
      expect(await store.bindingsOf(S2)).toEqual(['telegram:42:-', 'telegram:42:7']);
      expect(await store.unbind('telegram:42:7')).toBe(true);
      expect(await store.unbind('telegram:42:7')).toBe(false);
      await expect(store.bind('x', 'session-2000-01-01-00-00-00-00000000')).rejects.toMatchObject({ code: 'constraint', message: expect.stringMatching(/foreign key/i) });
    });

    it('disappear with their session, as do its approvals', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' });
      await store.bind('k', S1);
      const ap = await store.createApproval({ session_id: S1, tool_call_id: 'c1', tool_name: 'exec_command', expires_at: t.clock.t + 10 });
      expect(await store.deleteSession(S1)).toBe(true);
      expect(await store.deleteSession(S1)).toBe(false);
      expect(await store.resolveBinding('k')).toBeUndefined();
      expect(await store.getApproval(ap.id)).toBeUndefined();
    });
  });

  describe('approvals', () => {
    beforeEach(async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' });
      await store.createSession({ session_id: S2, project_id: 'p', agent_id: 'a' });
    });

    it('have short ids that fit a 64-byte button payload', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 50; i++) {
        const a = await store.createApproval({ session_id: S1, tool_call_id: `c${i}`, tool_name: 'write_file', expires_at: t.clock.t + 1 });
        expect(a.id).toMatch(APPROVAL_ID_RE);
        expect(Buffer.byteLength(`ap:allow-session:${a.id}`)).toBeLessThanOrEqual(64);
        ids.add(a.id);
      }
      expect(ids.size).toBe(50);
    });

    it('record the card, decide once, and show the first decision to later clicks', async () => {
      const a = await store.createApproval({
        session_id: S1, tool_call_id: 'call_1', tool_name: 'exec_command', requester: 'slack:U1', task_id: 'task-1', origin_session_id: CHILD, expires_at: t.clock.t + 3_600_000,
      });
      expect(a).toMatchObject({ state: 'pending', card: null, decided_by: null, requester: 'slack:U1', origin_session_id: CHILD, task_id: 'task-1', created_at: t.clock.t });
      expect(await store.setApprovalCard(a.id, { platform: 'slack', chat: 'C1', message_id: '171.5' })).toBe(true);
      expect(await store.setApprovalCard('nope000000', { platform: 'slack', chat: 'C1', message_id: '1' })).toBe(false);
      expect((await store.getApproval(a.id))?.card).toEqual({ platform: 'slack', chat: 'C1', message_id: '171.5' });

      t.clock.t += 5;
      const first = await store.decideApproval(a.id, 'allowed', 'slack:U2');
      expect(first).toMatchObject({ changed: true, row: { state: 'allowed', decided_by: 'slack:U2', decided_at: t.clock.t } });
      const second = await store.decideApproval(a.id, 'denied', 'slack:U3', t.clock.t + 1);
      expect(second).toMatchObject({ changed: false, row: { state: 'allowed', decided_by: 'slack:U2' } });
      expect(await store.decideApproval('zzzzzzzzzz', 'denied', null)).toBeUndefined();
    });

    it('expire when due and close the pending ones of a session, a task, or all', async () => {
      const mk = (session_id: string, tool_call_id: string, expires_at: number, task_id?: string) =>
        store.createApproval({ session_id, tool_call_id, tool_name: 'exec_command', expires_at, task_id });
      const due = await mk(S1, 'a', t.clock.t + 100);
      const later = await mk(S1, 'b', t.clock.t + 10_000, 'task-1');
      const other = await mk(S2, 'c', t.clock.t + 10_000, 'task-2');
      const other2 = await mk(S2, 'd', t.clock.t + 10_000, 'task-3');

      expect(await store.expireApprovals(t.clock.t + 99)).toEqual([]);
      const expired = await store.expireApprovals(t.clock.t + 100);
      expect(expired.map((r) => [r.id, r.state, r.decided_at])).toEqual([[due.id, 'expired', t.clock.t + 100]]);

      const byTask = await store.closePendingApprovals('denied', { task_id: 'task-2' }, 'slack:U9');
      expect(byTask.map((r) => [r.id, r.state, r.decided_by])).toEqual([[other.id, 'denied', 'slack:U9']]);
      const bySession = await store.closePendingApprovals('denied', { session_id: S1 });
      expect(bySession.map((r) => r.id)).toEqual([later.id]);
      const all = await store.closePendingApprovals('cancelled');
      expect(all.map((r) => [r.id, r.state])).toEqual([[other2.id, 'cancelled']]);
      expect(await store.closePendingApprovals('cancelled')).toEqual([]);

      expect((await store.listApprovals({ state: 'denied' })).map((r) => r.id).sort()).toEqual([later.id, other.id].sort());
      expect((await store.listApprovals({ session_id: S2 })).map((r) => r.id).sort()).toEqual([other.id, other2.id].sort());
      expect(await store.listApprovals({ state: 'pending' })).toEqual([]);
      expect(await store.listApprovals({ limit: 2 })).toHaveLength(2);
    });
  });

  describe('the store as a whole', () => {
    it('lets two connections to one database (gateway and CLI) decide an approval exactly once', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' });
      const a = await store.createApproval({ session_id: S1, tool_call_id: 'c', tool_name: 'exec_command', expires_at: t.clock.t + 1000 });
      const cli = await t.target.open();
      try {
        expect(cli.migration.applied).toEqual([]);
        const [x, y] = await Promise.all([store.decideApproval(a.id, 'allowed', 'slack:U1'), cli.decideApproval(a.id, 'denied', 'web:admin')]);
        expect([x!.changed, y!.changed].filter(Boolean)).toHaveLength(1);
        expect(x!.row.state).toBe(y!.row.state);
      } finally {
        await cli.close();
      }
    });

    it('lets one connection of the process write while another is inside a transaction', async () => {
      await store.createSession({ session_id: S1, project_id: 'p', agent_id: 'a' });
      const rows = Array.from({ length: 30 }, (_, i) => ({ ts: i, project_id: 'p', agent_id: 'a', session_id: S1, provider: 'openai', model_id: 'm', counts: { cache_read: 0, cache_write: 1, output: 1, total: 2 } }));
      const other = await t.target.open();
      try {
        const [, first] = await Promise.all([store.replaceUsage([S1], rows), other.recordInbound('slack', 'Ev1'), other.updateSession(S1, { title: 'T' })]);
        expect(first).toBe(true);
        expect(await other.listUsage()).toHaveLength(30);
        expect(await store.getSession(S1)).toMatchObject({ title: 'T', total: 60 });
      } finally {
        await other.close();
      }
    });

    it('rejects with a db_failed StoreError once closed', async () => {
      await t.store.close();
      await expect(store.getSession(S1)).rejects.toMatchObject({ name: 'StoreError', code: 'db_failed' });
      await t.store.close();
    });
  });
});
