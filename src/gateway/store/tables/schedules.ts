/**
 * Schedule runs: one row per slot (unique per schedule), so a slot is fired or marked missed at most once
 * even across restarts; durations are computed from the recorded start and end. Also each schedule's
 * watermark (how far it was watched, never moved back) and the approval modes operators granted schedules.
 */
import type { ScheduleGrant, ScheduleRunRow, ScheduleStore } from '../types';
import { clampLimit, placeholders, sortedBy, where, type Sql } from './sql';

const DURATION = 'duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE ? - started_at END';

export function scheduleMethods(q: Sql): ScheduleStore {
  return {
    async addScheduleRun(ref, slot, status, at, extra = {}) {
      return q.get<ScheduleRunRow>(
        `INSERT INTO schedule_runs (schedule_name, project_id, agent_id, slot, status, kind, error, created_at, instance_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING *`,
        ref.schedule_name, ref.project_id, ref.agent_id, slot, status, extra.kind ?? 'slot', extra.error ?? null, at ?? q.now(), extra.instance_id ?? null,
      );
    },

    async claimScheduleRun(id, instanceId) {
      return (await q.run(`UPDATE schedule_runs SET instance_id = ? WHERE id = ? AND instance_id IS NULL AND status = 'queued'`, instanceId, id)) === 1;
    },

    async getScheduleRun(id) {
      return q.get<ScheduleRunRow>('SELECT * FROM schedule_runs WHERE id = ?', id);
    },

    async startScheduleRun(id, sessionId, at) {
      return q.get<ScheduleRunRow>(`UPDATE schedule_runs SET status = 'running', session_id = ?, started_at = ? WHERE id = ? RETURNING *`, sessionId, at ?? q.now(), id);
    },

    async finishScheduleRun(id, status, error, at) {
      const end = at ?? q.now();
      return q.get<ScheduleRunRow>(`UPDATE schedule_runs SET status = ?, error = ?, ended_at = ?, ${DURATION} WHERE id = ? RETURNING *`, status, error ?? null, end, end, id);
    },

    async failUnfinishedScheduleRuns(error, at, keep = []) {
      const end = at ?? q.now();
      const spare = keep.length > 0 ? ` AND (instance_id IS NULL OR instance_id NOT IN (${placeholders(keep.length)}))` : '';
      const rows = await q.all<ScheduleRunRow>(
        `UPDATE schedule_runs SET status = 'failed', error = ?, ended_at = ?, ${DURATION} WHERE status IN ('queued', 'running')${spare} RETURNING *`,
        error, end, end, ...keep,
      );
      return sortedBy(rows, 'id');
    },

    async failScheduleRunsOf(instances, error, at) {
      if (instances.length === 0) return [];
      const end = at ?? q.now();
      const rows = await q.all<ScheduleRunRow>(
        `UPDATE schedule_runs SET status = 'failed', error = ?, ended_at = ?, ${DURATION} WHERE status IN ('queued', 'running') AND instance_id IN (${placeholders(instances.length)}) RETURNING *`,
        error, end, end, ...instances,
      );
      return sortedBy(rows, 'id');
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
      await q.tx(async (t) => {
        for (const r of refs) {
          await t.run(
            `INSERT INTO schedule_watch (project_id, agent_id, schedule_name, watched_until) VALUES (?, ?, ?, ?)
             ON CONFLICT (project_id, agent_id, schedule_name) DO UPDATE SET watched_until = GREATEST(schedule_watch.watched_until, excluded.watched_until)`,
            r.project_id, r.agent_id, r.schedule_name, at,
          );
        }
      });
    },

    async listScheduleWatermarks() {
      return q.all('SELECT project_id, agent_id, schedule_name, watched_until FROM schedule_watch ORDER BY project_id, agent_id, schedule_name');
    },

    async setScheduleGrant(g) {
      await q.run(
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
