/**
 * Schema version 7: who asked. `task_runs` records each Task's requester (`platform:user_id`, null for
 * unattended runs) and start; each usage row's `user_id` is the requester of its session's latest Task
 * started at or before the row, computed as the row is written, so the live index and a rebuild (which
 * restores `task_runs` from the journal first) agree. Usage recorded before this version has no user.
 */
import type { Migration } from './types';

export const taskRuns: Migration = {
  version: 7,
  name: 'task-runs',
  sql: `CREATE TABLE task_runs (
  task_id    TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  requester  TEXT,
  started_at INTEGER NOT NULL
);
CREATE INDEX task_runs_session ON task_runs (session_id, started_at);
ALTER TABLE usage ADD COLUMN user_id TEXT;
CREATE INDEX usage_user ON usage (user_id, date);`,
};
