/**
 * Versioned migrations for SQLite: pending ones run in one immediate transaction (so two processes
 * starting at once cannot both apply them), re-running is a no-op, and a database whose version is newer
 * than this build knows is refused with a clear error (see ../migrations/runner.ts).
 */
import type Database from 'better-sqlite3';
import { sqlite } from '../dialect';
import type { Migration } from '../migrations';
import { checkMigrations, migrationFailed, MIGRATION_TABLE, pendingMigrations, RECORD_MIGRATION, type MigrationReport } from '../migrations/runner';

export type { MigrationReport } from '../migrations/runner';

export function currentSchemaVersion(db: Database.Database): number {
  const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
  if (!table) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

export function migrate(db: Database.Database, migrations: readonly Migration[], opts: { now?: () => number; label?: string } = {}): MigrationReport {
  checkMigrations(migrations);
  const now = opts.now ?? Date.now;
  const label = opts.label ?? 'the gateway database';
  const run = db.transaction((): MigrationReport => {
    db.exec(sqlite.schema(MIGRATION_TABLE));
    const from = currentSchemaVersion(db);
    const applied: number[] = [];
    for (const m of pendingMigrations(migrations, from, label)) {
      try {
        db.exec(sqlite.schema(m.sql));
      } catch (e) {
        throw migrationFailed(m, label, e);
      }
      db.prepare(RECORD_MIGRATION).run(m.version, m.name, now());
      applied.push(m.version);
    }
    return { from, to: Math.max(from, migrations.length), applied };
  });
  return run.immediate();
}
