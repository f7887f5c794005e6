/**
 * Opens the gateway database (`<PENGUIN_HOME>/gateway.db`): creates its directory, sets WAL,
 * foreign keys and a busy timeout, brings the schema up to date, and returns a SqliteStore — the
 * GatewayStore implementation plus what the CLI needs (`migration` report, the raw handle for doctor).
 */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { sqlite } from '../dialect';
import { StoreError } from '../errors';
import { MIGRATIONS, type Migration } from '../migrations';
import { storeMethods } from '../tables';
import type { IndexStore } from '../types';
import { migrate, type MigrationReport } from './migrate';
import { SqliteSql } from './sql';

export interface SqliteStore extends IndexStore {
  readonly backend: 'sqlite';
  readonly path: string;
  readonly db: Database.Database;
}

export interface OpenOptions {
  now?: () => number;
  busyTimeoutMs?: number;
  /** For tests of the migration runner; the gateway always uses MIGRATIONS. */
  migrations?: readonly Migration[];
}

export function openSqliteStore(path: string, opts: OpenOptions = {}): SqliteStore {
  const now = opts.now ?? Date.now;
  let db: Database.Database;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // SQLite creates the -wal and -shm files with the database file's mode: make that 0600 from the start.
      closeSync(openSync(path, 'a', 0o600));
    }
    db = new Database(path);
  } catch (e) {
    throw new StoreError('open_failed', `cannot open the gateway database ${path}: ${(e as Error).message}`, { cause: e });
  }
  let migration: MigrationReport;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    migration = migrate(db, opts.migrations ?? MIGRATIONS, { now, label: path });
  } catch (e) {
    db.close();
    if (e instanceof StoreError) throw e;
    throw new StoreError('open_failed', `cannot open the gateway database ${path}: ${(e as Error).message}`, { cause: e });
  }
  const sql = new SqliteSql(db, path, now);
  return {
    backend: 'sqlite',
    location: path,
    path,
    db,
    migration,
    ...storeMethods(sql, sqlite),
    async close() {
      // what was issued before runs first, so no caller is left waiting on a closed connection
      await sql.drain();
      if (db.open) db.close();
    },
  };
}
