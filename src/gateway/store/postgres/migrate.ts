/**
 * Versioned migrations for PostgreSQL, the same list as SQLite's in PostgreSQL's dialect: pending ones run
 * in one transaction (DDL is transactional here, so a failure leaves nothing behind) under an advisory
 * lock, so two gateways starting at once apply them once; the second waits and finds the schema current.
 */
import type pg from 'pg';
import { postgres } from '../dialect';
import type { Migration } from '../migrations';
import { checkMigrations, migrationFailed, MIGRATION_TABLE, pendingMigrations, RECORD_MIGRATION, type MigrationReport } from '../migrations/runner';

const LOCK = `SELECT pg_advisory_xact_lock(hashtext('penguin-gateway:migrate'))`;

/** 0 when the database (the first schema on its search_path) has no gateway schema yet. */
export async function currentPgSchemaVersion(db: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const table = await db.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!table.rows[0].present) return 0;
  const row = await db.query('SELECT MAX(version) AS v FROM schema_migrations');
  return Number(row.rows[0].v ?? 0);
}

export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[], opts: { now: () => number; label: string }): Promise<MigrationReport> {
  checkMigrations(migrations);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query(LOCK);
    await client.query(postgres.schema(MIGRATION_TABLE));
    const from = await currentPgSchemaVersion(client);
    const applied: number[] = [];
    for (const m of pendingMigrations(migrations, from, opts.label)) {
      try {
        await client.query(postgres.schema(m.sql));
      } catch (e) {
        throw migrationFailed(m, opts.label, e);
      }
      await client.query(postgres.query(RECORD_MIGRATION), [m.version, m.name, opts.now()]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, migrations.length), applied };
  } catch (e) {
    await client.query('ROLLBACK').catch((r: Error) => (broken = r));
    throw e;
  } finally {
    client.release(broken);
  }
}
