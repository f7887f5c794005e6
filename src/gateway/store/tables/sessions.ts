/**
 * Sessions and bindings. A session row indexes a trace; the gateway's own columns (route, binding, title,
 * status, approval mode) are written through createSession/updateSession/bind (or restored from the
 * journal), so a reindex from traces refreshes the trace-derived columns and keeps everything else. A
 * session's `binding_key` names the conversation it is the current session of, or null.
 */
import type { NewSession, RestoredSession, SessionFilter, SessionPatch, SessionRow, SessionStore, TracedSession } from '../types';
import { chunked, clampLimit, placeholders, sortedBy, where, type Sql } from './sql';

const PATCHABLE = ['route', 'platform', 'binding_key', 'title', 'status', 'approval_mode', 'last_active_at', 'platform_problem'] as const;

export function sessionMethods(q: Sql): SessionStore {
  const get = (id: string) => q.get<SessionRow>('SELECT * FROM sessions WHERE session_id = ?', id);
  const insert = (t: Sql, s: NewSession) => {
    const at = s.created_at ?? q.now();
    return t.get<SessionRow>(
      `INSERT INTO sessions (session_id, project_id, agent_id, parent_session_id, route, platform, binding_key, title, status, approval_mode,
         created_at, updated_at, last_active_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      s.session_id, s.project_id, s.agent_id, s.parent_session_id ?? null, s.route ?? null, s.platform ?? null, s.binding_key ?? null,
      s.title ?? null, s.status ?? 'idle', s.approval_mode ?? 'read-only', at, at, at,
    );
  };
  const bind = async (t: Sql, key: string, sessionId: string) => {
    const at = q.now();
    await t.run('UPDATE sessions SET binding_key = NULL, updated_at = ? WHERE binding_key = ? AND session_id <> ?', at, key, sessionId);
    await t.run('UPDATE sessions SET binding_key = ?, updated_at = ? WHERE session_id = ? AND binding_key IS DISTINCT FROM ?', key, at, sessionId, key);
    await t.run(
      `INSERT INTO bindings (binding_key, session_id, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (binding_key) DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`,
      key, sessionId, at,
    );
  };
  return {
    async createSession(s: NewSession) {
      return (await insert(q, s))!;
    },

    async openSession(s) {
      // one transaction: a crash never leaves a session its conversation is not bound to
      return q.tx(async (t) => {
        const row = await insert(t, s);
        await bind(t, s.binding_key, s.session_id);
        return row!;
      });
    },

    async getSession(id) {
      return get(id);
    },

    async updateSession(id, patch: SessionPatch) {
      const keys = PATCHABLE.filter((k) => patch[k] !== undefined);
      if (keys.length === 0) return get(id);
      const sets = keys.map((k) => `${k} = ?`).join(', ');
      return q.get<SessionRow>(`UPDATE sessions SET ${sets}, updated_at = ? WHERE session_id = ? RETURNING *`, ...keys.map((k) => patch[k]), q.now(), id);
    },

    async listSessions(f: SessionFilter = {}) {
      const w = where([
        ['project_id = ?', f.project_id],
        ['agent_id = ?', f.agent_id],
        ['platform = ?', f.platform],
        ['route = ?', f.route],
        ['status = ?', f.status],
        ['last_active_at >= ?', f.since],
        ['last_active_at < ?', f.until],
        ["instr(lower(coalesce(title, '') || ' ' || session_id || ' ' || coalesce(binding_key, '')), lower(CAST(? AS TEXT))) > 0", f.text],
      ], [...(f.include_subagents ? [] : ['parent_session_id IS NULL']), ...(f.with_problem ? ['platform_problem IS NOT NULL'] : [])]);
      return q.all<SessionRow>(
        `SELECT * FROM sessions ${w.sql} ORDER BY last_active_at DESC, session_id DESC LIMIT ? OFFSET ?`,
        ...w.params, clampLimit(f.limit, 100), Math.max(0, f.offset ?? 0),
      );
    },

    async deleteSession(id) {
      return (await q.run('DELETE FROM sessions WHERE session_id = ?', id)) > 0;
    },

    async resetBusySessions(keys) {
      if (keys === undefined) {
        const rows = await q.all<{ session_id: string }>(`UPDATE sessions SET status = 'idle', updated_at = ? WHERE status <> 'idle' RETURNING session_id`, q.now());
        return sortedBy(rows, 'session_id').map((r) => r.session_id);
      }
      const out: { session_id: string }[] = [];
      for (const part of chunked([...keys])) {
        const marks = placeholders(part.length);
        out.push(...(await q.all<{ session_id: string }>(
          `UPDATE sessions SET status = 'idle', updated_at = ? WHERE status <> 'idle'
           AND (binding_key IN (${marks}) OR parent_session_id IN (SELECT session_id FROM sessions WHERE binding_key IN (${marks}))) RETURNING session_id`,
          q.now(), ...part, ...part,
        )));
      }
      return sortedBy(out, 'session_id').map((r) => r.session_id);
    },

    async upsertTracedSession(s: TracedSession) {
      await q.run(
        `INSERT INTO sessions (session_id, project_id, agent_id, parent_session_id, created_at, updated_at, last_active_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET
           project_id = excluded.project_id, agent_id = excluded.agent_id, parent_session_id = excluded.parent_session_id,
           created_at = excluded.created_at, last_active_at = GREATEST(sessions.last_active_at, excluded.last_active_at),
           updated_at = excluded.updated_at`,
        s.session_id, s.project_id, s.agent_id, s.parent_session_id, s.created_at, q.now(), s.last_active_at,
      );
    },

    async restoreSession(s: RestoredSession) {
      await q.run(
        `INSERT INTO sessions (session_id, project_id, agent_id, route, platform, binding_key, title, approval_mode, created_at, updated_at, last_active_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET
           route = excluded.route, platform = excluded.platform, binding_key = excluded.binding_key, title = excluded.title,
           approval_mode = excluded.approval_mode, created_at = excluded.created_at,
           last_active_at = GREATEST(sessions.last_active_at, excluded.created_at), updated_at = excluded.updated_at`,
        s.session_id, s.project_id, s.agent_id, s.route, s.platform, s.binding_key, s.title, s.approval_mode, s.created_at, q.now(), s.created_at,
      );
    },

    async bind(key, sessionId) {
      await q.tx((t) => bind(t, key, sessionId));
    },

    async resolveBinding(key) {
      return (await q.get<{ session_id: string }>('SELECT session_id FROM bindings WHERE binding_key = ?', key))?.session_id;
    },

    async unbind(key) {
      return q.tx(async (t) => {
        await t.run('UPDATE sessions SET binding_key = NULL, updated_at = ? WHERE binding_key = ?', q.now(), key);
        return (await t.run('DELETE FROM bindings WHERE binding_key = ?', key)) > 0;
      });
    },

    async bindingsOf(sessionId) {
      return (await q.all<{ binding_key: string }>('SELECT binding_key FROM bindings WHERE session_id = ? ORDER BY binding_key', sessionId)).map((r) => r.binding_key);
    },
  };
}
