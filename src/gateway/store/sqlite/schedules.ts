/**
 * Schedule runs on SQLite: one row per slot (unique per schedule), so a slot is fired or marked missed
 * at most once even across restarts; durations are computed from the recorded start and end. Also each
 * schedule's watermark (how far it was watched) and the approval modes operators granted schedules.
 */
import type { ScheduleGrant, ScheduleRunRow, ScheduleStore } from '../types';
import { clampLimit, where, type Sql } from './sql';

export function scheduleMethods(q: Sql): ScheduleStore {
  const get = (id: number) => q.get<ScheduleRunRow>('SELECT * FROM schedule_runs WHERE id = ?', id);
  return {
    async addScheduleRun(ref, slot, status, at, extra = {}) {
      const r = q.run(
        `INSERT OR IGNORE INTO schedule_runs (schedule_name, project_id, agent_id, slot, status, kind, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ref.schedule_name, ref.project_id, ref.agent_id, slot, status, extra.kind ?? 'slot', extra.error ?? null, at ?? q.now(),
      );
      return r.changes === 1 ? get(Number(r.lastInsertRowid)) : undefined;
    },

    async getScheduleRun(id) {
      return get(id);
    },

    async startScheduleRun(id, sessionId, at) {
      q.run(`UPDATE schedule_runs SET status = 'running', session_id = ?, started_at = ? WHERE id = ?`, sessionId, at ?? q.now(), id);
      return get(id);
    },

    async finishScheduleRun(id, status, error, at) {
      const end = at ?? q.now();
      q.run(
        `UPDATE schedule_runs SET status = ?, error = ?, ended_at = ?, duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE ? - started_at END WHERE id = ?`,
        status, error ?? null, end, end, id,
      );
      return get(id);
    },

    async failUnfinishedScheduleRuns(error, at) {
      const end = at ?? q.now();
      return q.tx(() => {
        const ids = q.all<{ id: number }>(`SELECT id FROM schedule_runs WHERE status IN ('queued', 'running') ORDER BY id`).map((r) => r.id);
        q.run(
          `UPDATE schedule_runs SET status = 'failed', error = ?, ended_at = ?, duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE ? - started_at END
           WHERE status IN ('queued', 'running')`,
          error, end, end,
        );
        return ids.map((id) => get(id)!);
      });
    },

    async listScheduleRuns(f = {}) {
      const w = where([
        ['schedule_name = ?', f.schedule_name],
        ['project_id = ?', f.project_id],
        ['agent_id = ?', f.agent_id],
        ['status = ?', f.status],
      ]);
      return q.all<ScheduleRunRow>(`SELECT * FROM schedule_runs ${w.sql} ORDER BY slot DESC, id DESC LIMIT ?`, ...w.params, clampLimit(f.limit, 100));
    },

    async markSchedulesWatched(refs, at) {
      q.tx(() => {
        for (const r of refs) {
          q.run(
            `INSERT INTO schedule_watch (project_id, agent_id, schedule_name, watched_until) VALUES (?, ?, ?, ?)
             ON CONFLICT (project_id, agent_id, schedule_name) DO UPDATE SET watched_until = MAX(watched_until, excluded.watched_until)`,
            r.project_id, r.agent_id, r.schedule_name, at,
          );
        }
      });
    },

    async listScheduleWatermarks() {
      return q.all('SELECT project_id, agent_id, schedule_name, watched_until FROM schedule_watch ORDER BY project_id, agent_id, schedule_name');
    },

    async setScheduleGrant(g) {
      q.run(
        `INSERT INTO schedule_grants (project_id, agent_id, schedule_name, approval_mode, definition_hash, granted_by, granted_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (project_id, agent_id, schedule_name) DO UPDATE SET approval_mode = excluded.approval_mode, definition_hash = excluded.definition_hash,
           granted_by = excluded.granted_by, granted_at = excluded.granted_at`,
        g.project_id, g.agent_id, g.schedule_name, g.approval_mode, g.definition_hash, g.granted_by, g.granted_at,
      );
    },

    async listScheduleGrants() {
      return q.all<ScheduleGrant>('SELECT * FROM schedule_grants ORDER BY project_id, agent_id, schedule_name');
    },
  };
}
