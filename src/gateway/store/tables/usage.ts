/**
 * Usage rows: one per `token_usage` and one zero-token row per non-completed `request_end`
 * (engine.md §8.5). Recording a row also adds its counts to the totals of its session (and of the
 * subagent session it came from) in the same transaction; replaceUsage rebuilds both for a reindex. A row's
 * `user_id` is the requester of its session's latest Task started at or before it (task_runs), so live and
 * rebuilt rows agree. Task runs are recorded here too.
 */
import type { StopReason } from '../../../core/omnimessage/types';
import type { TaskRunRow, TaskRunStore, UsageFilter, UsageGroupBy, UsageInput, UsageRow, UsageStore, UsageSums } from '../types';
import { clampLimit, localDate, where, type Sql } from './sql';

const GROUP_KEY: Record<UsageGroupBy | 'all', string> = {
  all: `''`,
  date: 'date',
  project: 'project_id',
  agent: 'agent_id',
  session: 'session_id',
  route: `COALESCE(route, '')`,
  platform: `COALESCE(platform, '')`,
  model: `provider || '/' || model_id`,
  user: `COALESCE(user_id, '')`,
};

function filterWhere(f: UsageFilter) {
  return where([
    ['project_id = ?', f.project_id],
    ['agent_id = ?', f.agent_id],
    ['session_id = ?', f.session_id],
    ['route = ?', f.route],
    ['platform = ?', f.platform],
    ['provider = ?', f.provider],
    ['model_id = ?', f.model_id],
    ['user_id = ?', f.user_id],
    ['date >= ?', f.from_date],
    ['date <= ?', f.to_date],
  ]);
}

const INSERT = `INSERT INTO usage (ts, date, project_id, agent_id, session_id, origin_session_id, route, platform, provider, model_id,
    cache_read, cache_write, output, total, status, user_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
    (SELECT requester FROM task_runs WHERE session_id = ? AND started_at <= ? ORDER BY started_at DESC, task_id DESC LIMIT 1))`;

function insertParams(u: UsageInput): unknown[] {
  const c = u.counts ?? { cache_read: 0, cache_write: 0, output: 0, total: 0 };
  const status: StopReason = u.status ?? 'completed';
  return [
    u.ts, localDate(u.ts), u.project_id, u.agent_id, u.session_id, u.origin_session_id ?? null, u.route ?? null, u.platform ?? null,
    u.provider, u.model_id, c.cache_read, c.cache_write, c.output, c.total, status, u.session_id, u.ts,
  ];
}

/** A session's totals: its own rows and the rows its subagent requests gave its top-level session. */
const recompute = (q: Sql, sessionId: string) =>
  q.run(
    `UPDATE sessions SET (cache_read, cache_write, output, total) = (
       SELECT COALESCE(SUM(cache_read), 0), COALESCE(SUM(cache_write), 0), COALESCE(SUM(output), 0), COALESCE(SUM(total), 0)
       FROM usage WHERE session_id = ? OR origin_session_id = ?)
     WHERE session_id = ?`,
    sessionId, sessionId, sessionId,
  );

export function usageMethods(q: Sql): UsageStore & TaskRunStore {
  return {
    async recordTaskRun(r) {
      return (await q.run('INSERT INTO task_runs (task_id, session_id, requester, started_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', r.task_id, r.session_id, r.requester, r.started_at)) === 1;
    },

    async listTaskRuns(f) {
      return q.all<TaskRunRow>('SELECT * FROM task_runs WHERE session_id = ? ORDER BY started_at DESC, task_id DESC LIMIT ?', f.session_id, clampLimit(f.limit, 100));
    },

    async recordUsage(u) {
      return q.tx(async (t) => {
        const row = (await t.get<UsageRow>(`${INSERT} RETURNING *`, ...insertParams(u)))!;
        const c = u.counts;
        if (c && (c.cache_read || c.cache_write || c.output || c.total)) {
          for (const sid of new Set([u.session_id, u.origin_session_id].filter((s): s is string => !!s))) {
            await t.run(
              'UPDATE sessions SET cache_read = cache_read + ?, cache_write = cache_write + ?, output = output + ?, total = total + ? WHERE session_id = ?',
              c.cache_read, c.cache_write, c.output, c.total, sid,
            );
          }
        }
        return row;
      });
    },

    async listUsage(f = {}) {
      const w = filterWhere(f);
      return q.all<UsageRow>(`SELECT * FROM usage ${w.sql} ORDER BY ts, id LIMIT ?`, ...w.params, clampLimit(f.limit, 1000, 100_000));
    },

    async sumUsage(groupBy, f = {}) {
      const w = filterWhere(f);
      const key = GROUP_KEY[groupBy];
      return q.all<UsageSums>(
        `SELECT ${key} AS key, project_id, provider, model_id,
           SUM(cache_read) AS cache_read, SUM(cache_write) AS cache_write, SUM(output) AS output, SUM(total) AS total,
           SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS requests,
           SUM(CASE WHEN status = 'completed' THEN 0 ELSE 1 END) AS failures
         FROM usage ${w.sql}
         GROUP BY 1, project_id, provider, model_id
         ORDER BY 1, project_id, provider, model_id`,
        ...w.params,
      );
    },

    async replaceUsage(sessionIds, rows) {
      await q.tx(async (t) => {
        const tops = new Set([...sessionIds, ...rows.map((r) => r.session_id)]);
        const touched = new Set(tops);
        for (const sid of tops) {
          for (const r of await t.all<{ o: string }>('SELECT DISTINCT origin_session_id AS o FROM usage WHERE session_id = ? AND origin_session_id IS NOT NULL', sid)) touched.add(r.o);
          await t.run('DELETE FROM usage WHERE session_id = ?', sid);
        }
        for (const r of rows) {
          await t.run(INSERT, ...insertParams(r));
          if (r.origin_session_id) touched.add(r.origin_session_id);
        }
        for (const sid of touched) await recompute(t, sid);
      });
    },
  };
}
