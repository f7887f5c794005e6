/**
 * Migrations on each backend: from an empty database, re-running is a no-op, upgrades apply in order and
 * once, two gateways starting at once migrate once, a future schema is refused, a failing migration leaves
 * nothing behind. Then what only one backend has: SQLite's pragmas and paths, PostgreSQL's connection.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, openPostgresStore, openSqliteStore, StoreError, type Migration } from '../../../src/gateway/store';
import { describeBackends, tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir('pg-migrate-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TABLES = [
  'admin_tokens', 'allowlist', 'approvals', 'bindings', 'cluster_mailbox', 'conversation_owners', 'deliveries', 'delivery_events', 'inbound_events', 'instances', 'pairing_requests',
  'schedule_grants', 'schedule_runs', 'schedule_watch', 'schema_migrations', 'sessions', 'task_runs', 'usage',
];
const next: Migration = { version: MIGRATIONS.length + 1, name: 'add_notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);' };

describeBackends('migrations', (backend) => {
  it('create the schema in an empty database', async () => {
    const target = await backend.target(dir);
    const s = await target.open();
    expect(s.migration).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
    expect(await target.tables()).toEqual(TABLES);
    await s.close();
  });

  it('are a no-op when run again', async () => {
    const target = await backend.target(dir);
    await (await target.open()).close();
    const again = await target.open();
    expect(again.migration).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    expect(Number((await target.rows<{ n: unknown }>('SELECT COUNT(*) AS n FROM schema_migrations'))[0].n)).toBe(MIGRATIONS.length);
    await again.close();
  });

  it('apply a newer migration to an existing database, once', async () => {
    const target = await backend.target(dir);
    await (await target.open()).close();
    const s = await target.open({ migrations: [...MIGRATIONS, next] });
    expect(s.migration).toEqual({ from: MIGRATIONS.length, to: next.version, applied: [next.version] });
    expect(await target.tables()).toContain('notes');
    await s.close();
    const s2 = await target.open({ migrations: [...MIGRATIONS, next] });
    expect(s2.migration.applied).toEqual([]);
    await s2.close();
  });

  it('run once when two gateways open an empty database at the same moment', async () => {
    const target = await backend.target(dir);
    const both = await Promise.all([target.open(), target.open()]);
    expect(both.map((s) => s.migration.applied.length).sort()).toEqual([0, MIGRATIONS.length]);
    for (const s of both) await s.close();
    expect(await target.tables()).toEqual(TABLES);
  });

  it('refuse a database written by a newer release', async () => {
    const target = await backend.target(dir);
    await (await target.open()).close();
    await target.exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${MIGRATIONS.length + 5}, 'from_the_future', 0)`);
    const err = await target.open().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('schema_too_new');
    expect((err as StoreError).message).toContain(`schema version ${MIGRATIONS.length + 5}`);
    expect((err as StoreError).message).toContain(`up to ${MIGRATIONS.length}`);
  });

  it('roll a failing migration back completely', async () => {
    const target = await backend.target(dir);
    const broken: Migration = { version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); CREATE TABLE a (y INTEGER);' };
    await expect(target.open({ migrations: [broken] })).rejects.toMatchObject({ code: 'migration_failed' });
    expect(await target.tables()).toEqual([]);
  });

  it('reject a migration list with a gap', async () => {
    const m: Migration[] = [{ version: 2, name: 'skips_one', sql: 'SELECT 1;' }];
    await expect((await backend.target(dir)).open({ migrations: m })).rejects.toMatchObject({ code: 'bad_migrations' });
  });
});

describe('SQLite', () => {
  it('creates the database and its directory with WAL, foreign keys and a busy timeout', async () => {
    const s = openSqliteStore(join(dir, 'nested', 'home', 'gateway.db'));
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(s.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    await s.close();
  });

  it('reports a path it cannot open', () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    expect(() => openSqliteStore(join(blocker, 'gateway.db'))).toThrow(expect.objectContaining({ code: 'open_failed' }));
  });
});

describe('PostgreSQL', () => {
  it('reports a server it cannot reach, naming it without the password', async () => {
    const err = await openPostgresStore('postgres://gw:s3cret-pw@127.0.0.1:1/penguin', { connectTimeoutMs: 2000 }).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreError', code: 'open_failed', message: expect.stringContaining('postgres://gw:***@127.0.0.1:1/penguin') });
    expect((err as Error).message).not.toContain('s3cret');
  });
});
