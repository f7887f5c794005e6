/** Migrations: from an empty database, re-running is a no-op, upgrades apply in order, a future schema is refused. */
import Database from 'better-sqlite3';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, StoreError, currentSchemaVersion, openSqliteStore, type Migration } from '../../../src/gateway/store';
import { tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir('pg-migrate-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TABLES = ['admin_tokens', 'allowlist', 'approvals', 'bindings', 'deliveries', 'delivery_events', 'inbound_events', 'pairing_requests', 'schedule_grants', 'schedule_runs', 'schedule_watch', 'schema_migrations', 'sessions', 'task_runs', 'usage'];

function tables(db: Database.Database): string[] {
  return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
}

describe('migrations', () => {
  it('creates the schema in an empty database (and its directory) with WAL and foreign keys on', async () => {
    const path = join(dir, 'nested', 'home', 'gateway.db');
    const s = openSqliteStore(path);
    expect(s.migration).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
    expect(tables(s.db)).toEqual(TABLES);
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(s.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    await s.close();
  });

  it('is a no-op when run again', async () => {
    const path = join(dir, 'gateway.db');
    await openSqliteStore(path).close();
    const again = openSqliteStore(path);
    expect(again.migration).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    expect((again.db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    await again.close();
  });

  it('applies a newer migration to an existing database, once', async () => {
    const path = join(dir, 'gateway.db');
    await openSqliteStore(path).close();
    const next: Migration = { version: MIGRATIONS.length + 1, name: 'add_notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);' };
    const s = openSqliteStore(path, { migrations: [...MIGRATIONS, next] });
    expect(s.migration).toEqual({ from: MIGRATIONS.length, to: next.version, applied: [next.version] });
    expect(tables(s.db)).toContain('notes');
    await s.close();
    const s2 = openSqliteStore(path, { migrations: [...MIGRATIONS, next] });
    expect(s2.migration.applied).toEqual([]);
    await s2.close();
  });

  it('refuses a database written by a newer release', () => {
    const path = join(dir, 'gateway.db');
    const raw = openSqliteStore(path);
    raw.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(MIGRATIONS.length + 5, 'from_the_future', 0);
    raw.db.close();
    let err: unknown;
    try {
      openSqliteStore(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('schema_too_new');
    expect((err as StoreError).message).toContain(`schema version ${MIGRATIONS.length + 5}`);
    expect((err as StoreError).message).toContain(`up to ${MIGRATIONS.length}`);
  });

  it('rolls a failing migration back completely', () => {
    const path = join(dir, 'gateway.db');
    const broken: Migration = { version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); CREATE TABLE a (y INTEGER);' };
    expect(() => openSqliteStore(path, { migrations: [broken] })).toThrow(expect.objectContaining({ code: 'migration_failed' }));
    const db = new Database(path);
    expect(currentSchemaVersion(db)).toBe(0);
    expect(tables(db)).toEqual([]);
    db.close();
  });

  it('rejects a migration list with a gap', () => {
    const m: Migration[] = [{ version: 2, name: 'skips_one', sql: 'SELECT 1;' }];
    expect(() => openSqliteStore(join(dir, 'gateway.db'), { migrations: m })).toThrow(expect.objectContaining({ code: 'bad_migrations' }));
  });

  it('reports a path it cannot open', () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    expect(() => openSqliteStore(join(blocker, 'gateway.db'))).toThrow(expect.objectContaining({ code: 'open_failed' }));
  });
});
