/**
 * Binding a session unbinds whichever session held its conversation before; that lookup goes through the
 * `sessions.binding_key` index rather than a scan of every session (opening n conversations stays O(n log n)).
 */
import { openSqliteStore } from '../../../src/gateway/store/sqlite/open';

test('the unbinding of a conversation\'s previous session searches the binding_key index', async () => {
  const store = openSqliteStore(':memory:');
  const plan = store.db
    .prepare('EXPLAIN QUERY PLAN UPDATE sessions SET binding_key = NULL, updated_at = ? WHERE binding_key = ? AND session_id <> ?')
    .all(1, 'web:c1', 's-1') as { detail: string }[];
  expect(plan.map((p) => p.detail)).toEqual([expect.stringContaining('USING INDEX sessions_binding_key')]);
  await store.close();
});
