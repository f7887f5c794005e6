/**
 * The store's two backends as test targets: a fresh, empty database to open stores on, look into and
 * lose. SQLite: a file in the test's dir. PostgreSQL: a schema of its own (via search_path in the URL) in
 * the run's database on its shared server (test/helpers/pg-server.ts); a test file's schemas are dropped
 * by `releasePostgres` after it. Under CI a missing PostgreSQL fails its tests; elsewhere they skip.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore, openSqliteStore, type IndexStore, type Migration } from '../../../src/gateway/store';
import { findPgBin, NO_POSTGRES, sharedServer, type PgServer } from '../../helpers/pg-server';

export type BackendName = 'sqlite' | 'postgres';

export interface TargetOptions {
  now?: () => number;
  migrations?: readonly Migration[];
}

export interface TestTarget {
  backend: BackendName;
  /** What openGatewayStore takes to open this database. */
  where: { dbPath: string; databaseUrl?: string };
  open(opts?: TargetOptions): Promise<IndexStore>;
  /** The tables there, by name. */
  tables(): Promise<string[]>;
  /** Runs SQL of the backend's own dialect there, past the store. */
  exec(sql: string): Promise<void>;
  /** The rows one such statement gives. */
  rows<T>(sql: string): Promise<T[]>;
  /** The database is lost: the file removed, or the schema emptied. */
  lose(): Promise<void>;
  /** Once its stores are closed: wipe the rows and let `Backend.migrated` hand it out again. */
  recycle?(): Promise<void>;
}

export interface Backend {
  name: BackendName;
  /** A fresh, empty database; SQLite keeps its file in `dir`. */
  target(dir: string): Promise<TestTarget>;
  /** A database already at the current schema with no rows, when one is spare (faster than migrating). */
  migrated?(dir: string): Promise<TestTarget | undefined>;
}

/** Targets made in each dir so far: the first is `gateway.db`, as in a data root. */
const made = new Map<string, number>();
export const sqliteBackend: Backend = {
  name: 'sqlite',
  async target(dir) {
    const n = made.get(dir) ?? 0;
    made.set(dir, n + 1);
    const path = join(dir, n === 0 ? 'gateway.db' : `gateway-${n + 1}.db`);
    const withDb = <T>(fn: (db: Database.Database) => T): T => {
      const db = new Database(path);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return {
      backend: 'sqlite',
      where: { dbPath: path },
      open: async (o) => openSqliteStore(path, o),
      tables: async () => withDb((db) => (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name)),
      exec: async (sql) => withDb((db) => void db.exec(sql)),
      rows: async <T>(sql: string) => withDb((db) => db.prepare(sql).all() as T[]),
      lose: async () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      },
    };
  },
};

const randomName = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;

interface Run {
  server: PgServer;
  pool: pg.Pool;
}
let run: Promise<Run> | undefined;
/** Schemas this test file made, and those of them free for another openTestStore (migrated, rows wiped). */
const schemas: string[] = [];
const spare: string[] = [];

function runDatabase(): Promise<Run> {
  run ??= sharedServer().then((server) => ({ server, pool: new pg.Pool({ connectionString: serverUrl(server), max: 2 }) }));
  return run;
}

export const serverUrl = (s: PgServer) => `postgres://${s.user}:${s.password}@127.0.0.1:${s.port}/${s.database}`;

/** A URL of the run's database whose search_path is `schema`. */
export async function postgresUrl(schema: string): Promise<string> {
  return `${serverUrl((await runDatabase()).server)}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Drops the schemas this test file made (every store on them must be closed). */
export async function releasePostgres(): Promise<void> {
  const pending = run;
  run = undefined;
  const db = await pending?.catch(() => undefined);
  if (!db) return;
  if (schemas.length > 0) await db.pool.query(`DROP SCHEMA IF EXISTS ${schemas.splice(0).join(', ')} CASCADE`);
  spare.length = 0;
  await db.pool.end();
}

/** Empties every table but schema_migrations and restarts the identity columns: as freshly migrated. */
const WIPE = `DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' LOOP
    EXECUTE format('DELETE FROM %I', r.tablename);
  END LOOP;
  PERFORM setval(c.oid, 1, false) FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = current_schema()::regnamespace;
END $$`;

function pgTarget(db: Run, schema: string, dir: string, url: string): TestTarget {
  const inSchema = (sql: string) => db.pool.query(`SET search_path TO ${schema}; ${sql}; RESET search_path`) as unknown as Promise<pg.QueryResult[]>;
  return {
    backend: 'postgres',
    where: { dbPath: join(dir, 'gateway.db'), databaseUrl: url },
    open: (o) => openPostgresStore(url, { poolSize: 4, ...o }),
    tables: async () =>
      (await db.pool.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema])).rows.map((r) => r.table_name),
    exec: async (sql) => void (await inSchema(sql)),
    rows: async <T>(sql: string) => (await inSchema(sql))[1].rows as T[],
    lose: async () => void (await db.pool.query(`DROP SCHEMA ${schema} CASCADE; CREATE SCHEMA ${schema}`)),
    recycle: async () => {
      await inSchema(WIPE);
      spare.push(schema);
    },
  };
}

export const postgresBackend: Backend = {
  name: 'postgres',
  async target(dir) {
    const db = await runDatabase();
    const schema = randomName('t_');
    await db.pool.query(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    return pgTarget(db, schema, dir, await postgresUrl(schema));
  },
  async migrated(dir) {
    const schema = spare.pop();
    if (!schema) return undefined;
    return pgTarget(await runDatabase(), schema, dir, await postgresUrl(schema));
  },
};

/** Why the PostgreSQL variant does not run here, or undefined when it does (always under CI). */
export const POSTGRES_SKIPPED: string | undefined = findPgBin() || process.env.CI === 'true' ? undefined : NO_POSTGRES;

