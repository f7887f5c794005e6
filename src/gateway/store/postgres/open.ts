/**
 * Opens the gateway index on PostgreSQL (PENGUIN_DATABASE_URL): a connection pool with numbers parsed as
 * numbers, the schema brought up to date, and the same repositories as SQLite over it. `location` is the
 * URL without its password. Connection failures at open are `open_failed`; later ones `db_failed`.
 */
import type pg from 'pg';
import { pgDriver } from './pg-driver';
import { postgres } from '../dialect';
import { StoreError } from '../errors';
import { MIGRATIONS, type Migration } from '../migrations';
import { storeMethods } from '../tables';
import type { IndexStore } from '../types';
import { migratePostgres } from './migrate';
import { PG_TYPES, PgSql } from './sql';
import { redactDatabaseUrl } from './url';

export interface PostgresStore extends IndexStore {
  readonly backend: 'postgres';
  readonly pool: pg.Pool;
}

export interface PgOpenOptions {
  now?: () => number;
  /** Connections kept at most; default 10. */
  poolSize?: number;
  /** How long to wait for a connection; default 10 s. */
  connectTimeoutMs?: number;
  /** For tests of the migration runner; the gateway always uses MIGRATIONS. */
  migrations?: readonly Migration[];
}

export async function openPostgresStore(url: string, opts: PgOpenOptions = {}): Promise<PostgresStore> {
  const now = opts.now ?? Date.now;
  const location = redactDatabaseUrl(url);
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    types: PG_TYPES,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    application_name: 'penguin-gateway',
  });
  // An idle connection the server dropped: the pool discards it, and the next query opens a fresh one.
  pool.on('error', () => undefined);
  let migration;
  try {
    migration = await migratePostgres(pool, opts.migrations ?? MIGRATIONS, { now, label: location });
  } catch (e) {
    await pool.end();
    if (e instanceof StoreError) throw e;
    throw new StoreError('open_failed', `cannot open the gateway database ${location}: ${(e as Error).message}`, { cause: e });
  }
  let closed = false;
  return {
    backend: 'postgres',
    location,
    migration,
    pool,
    ...storeMethods(new PgSql(pool, now), postgres),
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
