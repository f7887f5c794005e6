/**
 * `journaled(store, journal)`: the GatewayStore every part of the gateway and the CLI uses. Each change
 * no trace could reproduce (see entries.ts) goes to the index, then to the journal, and the call resolves
 * only once both hold it; so a lost or corrupt gateway.db loses nothing `reindex` cannot restore. Reads,
 * trace-derived writes and coordination state (status, deliveries, approvals, inbound ids) pass through.
 */
import type { GatewayStore, SessionPatch, SessionRow } from '../types';
import type { JournalEntry } from './entries';
import type { JournalFile } from './journal-file';

const DURABLE_PATCH = ['route', 'platform', 'binding_key', 'title', 'approval_mode'] as const;

const sessionEntry = (row: SessionRow): JournalEntry => ({
  t: 'session', at: row.created_at, session_id: row.session_id, project_id: row.project_id, agent_id: row.agent_id, route: row.route,
  platform: row.platform, binding_key: row.binding_key, title: row.title, approval_mode: row.approval_mode, created_at: row.created_at,
});

export function journaled(store: GatewayStore, journal: Pick<JournalFile, 'append' | 'appendAll'>, now: () => number = Date.now): GatewayStore {
  const log = (e: JournalEntry) => journal.append(e);
  return {
    ...store,

    async createSession(s) {
      const row = await store.createSession(s);
      await log(sessionEntry(row));
      return row;
    },

    async openSession(s) {
      const row = await store.openSession(s);
      await journal.appendAll([sessionEntry(row), { t: 'bind', at: now(), binding_key: s.binding_key, session_id: row.session_id }]);
      return row;
    },

    async updateSession(id, patch: SessionPatch) {
      const row = await store.updateSession(id, patch);
      const kept = Object.fromEntries(DURABLE_PATCH.filter((k) => patch[k] !== undefined).map((k) => [k, patch[k]]));
      if (row && Object.keys(kept).length > 0) await log({ t: 'session_patch', at: now(), session_id: id, ...kept });
      return row;
    },

    async deleteSession(id) {
      const gone = await store.deleteSession(id);
      if (gone) await log({ t: 'session_deleted', at: now(), session_id: id });
      return gone;
    },

    async bind(key, sessionId) {
      await store.bind(key, sessionId);
      await log({ t: 'bind', at: now(), binding_key: key, session_id: sessionId });
    },

    async unbind(key) {
      const was = await store.unbind(key);
      if (was) await log({ t: 'unbind', at: now(), binding_key: key });
      return was;
    },

    async recordTaskRun(r) {
      const added = await store.recordTaskRun(r);
      if (added) await log({ t: 'task', at: r.started_at, task_id: r.task_id, session_id: r.session_id, requester: r.requester });
      return added;
    },

    async recordUsage(u) {
      const row = await store.recordUsage(u);
      if (u.untraced) {
        const { untraced: _, ...kept } = u;
        await log({ t: 'usage', at: now(), row: kept });
      }
      return row;
    },

    async requestPairing(p) {
      const r = await store.requestPairing(p);
      if (r.created) await log({ t: 'pairing', at: r.row.created_at, row: r.row });
      return r;
    },

    async decidePairing(code, decision, by, at) {
      const r = await store.decidePairing(code, decision, by, at ?? now());
      if (r.ok || r.reason === 'expired') {
        const row = r.row!;
        await log({ t: 'pairing', at: row.decided_at ?? now(), row });
        if (r.ok && row.state === 'approved') {
          await log({ t: 'allow', at: row.decided_at!, platform: row.platform, kind: row.kind, user_id: row.user_id, added_by: by });
        }
      }
      return r;
    },

    async allowUser(platform, userId, by, at, kind = 'user') {
      const when = at ?? now();
      const added = await store.allowUser(platform, userId, by, when, kind);
      if (added) await log({ t: 'allow', at: when, platform, kind, user_id: userId, added_by: by });
      return added;
    },

    async disallowUser(platform, userId, kind = 'user') {
      const removed = await store.disallowUser(platform, userId, kind);
      if (removed) await log({ t: 'disallow', at: now(), platform, kind, user_id: userId });
      return removed;
    },

    async addAdminTokenHash(hash, at) {
      const when = at ?? now();
      const added = await store.addAdminTokenHash(hash, when);
      if (added) await log({ t: 'admin_token', at: when, hash });
      return added;
    },

    async setScheduleGrant(g) {
      await store.setScheduleGrant(g);
      const { granted_at, ...rest } = g;
      await log({ t: 'schedule_grant', at: granted_at, ...rest });
    },

    async revokeAdminTokenHash(hash) {
      const revoked = await store.revokeAdminTokenHash(hash);
      if (revoked) await log({ t: 'admin_token_revoked', at: now(), hash });
      return revoked;
    },
  };
}
