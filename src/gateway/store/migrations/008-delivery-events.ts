/**
 * Schema version 8: the timeline of each reply. `delivery_events` holds one row per step of a Task's
 * delivery (the inbound message, the start, every post, edit, draft, retry, 429 and failure) for the
 * dashboard. It is diagnostic: not journaled, not rebuilt by reindex, and pruned after a retention period.
 */
import type { Migration } from './types';

export const deliveryEvents: Migration = {
  version: 8,
  name: 'delivery-events',
  sql: `CREATE TABLE delivery_events (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id     TEXT NOT NULL,
  delivery_id INTEGER,
  part        INTEGER,
  kind        TEXT NOT NULL,
  detail      TEXT,
  at          INTEGER NOT NULL
);
CREATE INDEX delivery_events_task ON delivery_events (task_id, id);
CREATE INDEX delivery_events_at ON delivery_events (at);`,
};
