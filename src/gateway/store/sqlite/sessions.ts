/**
 * Sessions and bindings on SQLite. A session row indexes a trace; the gateway's own columns (route,
 * binding, title, status, approval mode) are written through createSession/updateSession/bind (or restored
 * from the journal), so a reindex from traces refreshes the trace-derived columns and keeps everything else.
 * A session's `binding_key` names the conversation it is the current session of, or null.
 */
import type { NewSession, RestoredSession, SessionFilter, SessionPatch, SessionRow, SessionStore, TracedSession } from '../types';
import { clampLimit, where, type Sql } from './sql';

const PATCHABLE = ['route', 'platform', 'binding_key', 'title', 'status', 'approval_mode', 'last_active_at', 'platform_problem'] as const;

export function sessionMethods(q: Sql): SessionStore {
  const get = (id: string) => q.get<SessionRow>('SELECT * FROM sessions WHERE session_id = ?', id);
  const insert = (s: NewSession) => {
    const at = s.created_at ?? q.now();
    q.run(
      `INSERT INTO sessions (session_id, project_id, agent_id, parent_session_id, route, platform, binding_key, title, status, approval_mode,
         created_at, updated_at, last_active_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      s.session_id, s.project_id, s.agent_id, s.parent_session_id ?? null, s.route ?? null, s.platform ?? null, s.binding_key ?? null,
      s.title ?? null, s.status ?? 'idle', s.approval_mode ?? 'read-only', at, at, at,
    );
  };
  const bind = (key: string, sessionId: string) => {
    const at = q.now();
    q.tx(() => {
      q.run('UPDATE sessions SET binding_key = NULL, updated_at = ? WHERE binding_key = ? AND session_id <> ?', at, key, sessionId);
      q.run('UPDATE sessions SET binding_key = ?, updated_at = ? WHERE session_id = ? AND binding_key IS NOT ?', key, at, sessionId, key);
      q.run(
        `INSERT INTO bindings (binding_key, session_id, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (binding_key) DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`,
        key, sessionId, at,
      );
    });
  };
  return {
    async createSession(s: NewSession) {
      insert(s);
      return get(s.session_id)!;
    },

    async openSession(s) {
      q.tx(() => {
        insert(s);
        bind(s.binding_key, s.session_id);
      });
      return get(s.session_id)!;
    },

    async getSession(id) {
      return get(id);
    },

    async updateSession(id, patch: SessionPatch) {
      const keys = PATCHABLE.filter((k) => patch[k] !== undefined);
      if (keys.length > 0) {
        const sets = keys.map((k) => `${k} = ?`).join(', ');
        q.run(`UPDATE sessions SET ${sets}, updated_at = ? WHERE session_id = ?`, ...keys.map((k) => patch[k]), q.now(), id);
      }
      return get(id);
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
        ["instr(lower(coalesce(title, '') || ' ' || session_id || ' ' || coalesce(binding_key, '')), lower(?)) > 0", f.text],
      ], [...(f.include_subagents ? [] : ['parent_session_id IS NULL']), ...(f.with_problem ? ['platform_problem IS NOT NULL'] : [])]);
      return q.all<SessionRow>(
        `SELECT * FROM sessions ${w.sql} ORDER BY last_active_at DESC, session_id DESC LIMIT ? OFFSET ?`,
        ...w.params, clampLimit(f.limit, 100), Math.max(0, f.offset ?? 0),
      );
    },

    async deleteSession(id) {
      return q.run('DELETE FROM sessions WHERE session_id = ?', id).changes > 0;
    },

    async resetBusySessions() {
      return q.tx(() => {
        const ids = q.all<{ session_id: string }>(`SELECT session_id FROM sessions WHERE status <> 'idle' ORDER BY session_id`).map((r) => r.session_id);
        q.run(`UPDATE sessions SET status = 'idle', updated_at = ? WHERE status <> 'idle'`, q.now());
        return ids;
      });
    },

    async upsertTracedSession(s: TracedSession) {
      q.run(
        `INSERT INTO sessions (session_id, project_id, agent_id, parent_session_id, created_at, updated_at, last_active_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET
           project_id = excluded.project_id, agent_id = excluded.agent_id, parent_session_id = excluded.parent_session_id,
           created_at = excluded.created_at, last_active_at = MAX(sessions.last_active_at, excluded.last_active_at),
           updated_at = excluded.updated_at`,
        s.session_id, s.project_id, s.agent_id, s.parent_session_id, s.created_at, q.now(), s.last_active_at,
      );
    },

    async restoreSession(s: RestoredSession) {
      q.run(
        `INSERT INTO sessions (session_id, project_id, agent_id, route, platform, binding_key, title, approval_mode, created_at, updated_at, last_active_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET
           route = excluded.route, platform = excluded.platform, binding_key = excluded.binding_key, title = excluded.title,
           approval_mode = excluded.approval_mode, created_at = excluded.created_at,
           last_active_at = MAX(sessions.last_active_at, excluded.created_at), updated_at = excluded.updated_at`,
        s.session_id, s.project_id, s.agent_id, s.route, s.platform, s.binding_key, s.title, s.approval_mode, s.created_at, q.now(), s.created_at,
      );
    },

    async bind(key, sessionId) {
      bind(key, sessionId);
    },

    async resolveBinding(key) {
      return q.get<{ session_id: string }>('SELECT session_id FROM bindings WHERE binding_key = ?', key)?.session_id;
    },

    async unbind(key) {
      return q.tx(() => {
        q.run('UPDATE sessions SET binding_key = NULL, updated_at = ? WHERE binding_key = ?', q.now(), key);
        return q.run('DELETE FROM bindings WHERE binding_key = ?', key).changes > 0;
      });
    },

    async bindingsOf(sessionId) {
      return q.all<{ binding_key: string }>('SELECT binding_key FROM bindings WHERE session_id = ? ORDER BY binding_key', sessionId).map((r) => r.binding_key);
    },
  };
}
