/**
 * Group commit of the SQLite `Sql`: the writes and transactions issued within one event-loop turn, by one
 * callback or by several, are one commit (seen in the WAL: one frame per page, not one per write); a
 * failing statement or transaction is undone and rejected alone; the group is replayed job by job when
 * SQLite rolls the whole of it back; reads see the writes issued before them; closing runs what was issued.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSql } from '../../../src/gateway/store/sqlite/sql';
import { openSqliteStore } from '../../../src/gateway/store/sqlite/open';

let dir: string;
let db: Database.Database;
let sql: SqliteSql;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-group-'));
  db = new Database(join(dir, 'g.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  db.exec("CREATE TRIGGER doom BEFORE INSERT ON items WHEN NEW.v = 'doom' BEGIN SELECT RAISE(ROLLBACK, 'doomed'); END");
  sql = new SqliteSql(db, join(dir, 'g.db'), Date.now);
});
afterEach(async () => {
  await sql.drain();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (id: number, v = `v${id}`) => sql.run('INSERT INTO items (id, v) VALUES (?, ?)', id, v);
const ids = () => (db.prepare('SELECT id FROM items ORDER BY id').all() as { id: number }[]).map((r) => r.id);
/** Frames in the WAL, which only grows while checkpoints are off: each commit writes every page it changed once. */
const walFrames = () => {
  const size = statSync(join(dir, 'g.db-wal')).size;
  return size === 0 ? 0 : (size - 32) / ((db.pragma('page_size', { simple: true }) as number) + 24);
};

test('a turn of writes is one commit; writes awaited one by one are one commit each', async () => {
  const before = walFrames();
  await Promise.all(Array.from({ length: 50 }, (_, i) => insert(i + 1)));
  const grouped = walFrames() - before;
  for (let i = 51; i <= 100; i++) await insert(i);
  const single = walFrames() - before - grouped;
  expect(ids()).toHaveLength(100);
  expect(grouped).toBeLessThan(5);
  expect(single).toBeGreaterThanOrEqual(50);
});

test('writes of several callbacks of one event-loop turn share its commit', async () => {
  const before = walFrames();
  // Fifty timers due at once run in one timers phase, as the callbacks of a burst of arrivals run in one poll phase.
  await new Promise<void>((done) => {
    let left = 50;
    for (let i = 1; i <= 50; i++) setTimeout(() => void insert(i).then(() => --left === 0 && done()), 0);
  });
  expect(ids()).toHaveLength(50);
  expect(walFrames() - before).toBeLessThan(5);
});

test('each caller gets its own result; a failing statement is undone and rejected alone', async () => {
  await insert(1);
  const results = await Promise.allSettled([
    insert(2),
    insert(1, 'duplicate'),
    sql.run('UPDATE items SET v = ? WHERE id IN (1, 2)', 'changed'),
    sql.get<{ v: string }>('SELECT v FROM items WHERE id = 2'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
  expect((results[2] as PromiseFulfilledResult<number>).value).toBe(2);
  expect((results[3] as PromiseFulfilledResult<{ v: string }>).value).toEqual({ v: 'changed' });
  expect(db.prepare('SELECT id, v FROM items ORDER BY id').all()).toEqual([{ id: 1, v: 'changed' }, { id: 2, v: 'changed' }]);
});

test('a statement that fails part way is undone whole, the rest of its group kept', async () => {
  await insert(1);
  const results = await Promise.allSettled([
    insert(2),
    sql.run('INSERT INTO items (id, v) VALUES (5, ?), (1, ?)', 'first row', 'duplicate'),
    insert(3),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(ids()).toEqual([1, 2, 3]);
});

test('a transaction in the group is all or nothing and sees the writes issued before it', async () => {
  const first = insert(1);
  const seen = sql.tx(async (t) => {
    const row = await t.get<{ v: string }>('SELECT v FROM items WHERE id = 1');
    await t.run('INSERT INTO items (id, v) VALUES (?, ?)', 2, 'in tx');
    return row?.v;
  });
  const failed = sql.tx(async (t) => {
    await t.run('INSERT INTO items (id, v) VALUES (?, ?)', 3, 'undone');
    throw new Error('changed my mind');
  });
  const after = insert(4);
  await expect(seen).resolves.toBe('v1');
  await expect(failed).rejects.toThrow('changed my mind');
  await Promise.all([first, after]);
  expect(ids()).toEqual([1, 2, 4]);
});

test('when SQLite rolls the whole group back, every job runs again alone and only the culprit fails', async () => {
  const results = await Promise.allSettled([insert(1), insert(2, 'doom'), sql.tx(async (t) => t.run('INSERT INTO items (id, v) VALUES (3, ?)', 'tx')), insert(4)]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('doomed');
  expect(ids()).toEqual([1, 3, 4]);
});

test('a read issued after a write that is still queued sees it', async () => {
  const write = insert(7);
  await expect(sql.get('SELECT v FROM items WHERE id = 7')).resolves.toEqual({ v: 'v7' });
  await write;
});

test('closing the store runs the statements issued before', async () => {
  const path = join(dir, 'store.db');
  const store = openSqliteStore(path);
  const created = store.createSession({ session_id: 's-1', project_id: 'p', agent_id: 'a' });
  await store.close();
  await created;
  const again = openSqliteStore(path);
  expect(await again.getSession('s-1')).toMatchObject({ session_id: 's-1' });
  await again.close();
});
