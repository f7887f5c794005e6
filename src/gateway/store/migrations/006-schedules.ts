/**
 * Schema version 6: what the scheduler keeps besides its run rows. `schedule_runs.kind` tells a slot's fire
 * from a run the operator asked for (`manual`); `schedule_watch` is how far each schedule was watched (its
 * slots after that and before the next start were missed while the gateway was down); `schedule_grants`
 * holds the approval mode an operator granted one schedule definition (by its hash), also journaled.
 */
import type { Migration } from './types';

export const schedules: Migration = {
  version: 6,
  name: 'schedules',
  sql: `ALTER TABLE schedule_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'slot' CHECK (kind IN ('slot', 'manual'));
CREATE INDEX schedule_runs_schedule ON schedule_runs (project_id, agent_id, schedule_name, slot);

CREATE TABLE schedule_watch (
  project_id    TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  schedule_name TEXT NOT NULL,
  watched_until INTEGER NOT NULL,
  PRIMARY KEY (project_id, agent_id, schedule_name)
) WITHOUT ROWID;

CREATE TABLE schedule_grants (
  project_id      TEXT NOT NULL,
  agent_id        TEXT NOT NULL,
  schedule_name   TEXT NOT NULL,
  approval_mode   TEXT NOT NULL CHECK (approval_mode IN ('allow-all', 'deny-all', 'read-only', 'always-ask')),
  definition_hash TEXT NOT NULL,
  granted_by      TEXT,
  granted_at      INTEGER NOT NULL,
  PRIMARY KEY (project_id, agent_id, schedule_name)
) WITHOUT ROWID;`,
};
