/**
 * Schema version 10: an index on `sessions.binding_key`. Binding a new session first unbinds whichever
 * session held its conversation (`WHERE binding_key = ?`); without the index that is a scan of every
 * session, so opening n conversations cost O(n²).
 */
import type { Migration } from './types';

export const sessionBindingIndex: Migration = {
  version: 10,
  name: 'session-binding-index',
  sql: `CREATE INDEX sessions_binding_key ON sessions (binding_key);`,
};
