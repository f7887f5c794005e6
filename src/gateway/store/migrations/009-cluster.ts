/**
 * Schema version 9: several gateway instances on one database (gateway.md §12). `instances` is who is
 * alive (a heartbeat each instance renews); `conversation_owners` says which instance runs a conversation
 * (by binding key), so one writer per session and per chat; `cluster_mailbox` carries work that arrived at
 * one instance to the owner. `schedule_runs.instance_id` is the instance that fired a run.
 */
import type { Migration } from './types';

export const cluster: Migration = {
  version: 9,
  name: 'cluster',
  sql: `CREATE TABLE instances (
  instance_id  TEXT PRIMARY KEY,
  url          TEXT,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
);

CREATE TABLE conversation_owners (
  binding_key TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  since       INTEGER NOT NULL
);
CREATE INDEX conversation_owners_instance ON conversation_owners (instance_id);

CREATE TABLE cluster_mailbox (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  to_instance   TEXT NOT NULL,
  from_instance TEXT NOT NULL,
  kind          TEXT NOT NULL,
  body          TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE INDEX cluster_mailbox_to ON cluster_mailbox (to_instance, id);

ALTER TABLE schedule_runs ADD COLUMN instance_id TEXT;`,
};
