/**
 * Versioned migrations for SQLite. `schema_migrations` records each applied version; pending ones run in
 * one immediate transaction (so two processes starting at once cannot both apply them), re-running is a
 * no-op, and a database whose version is newer than this build knows is refused with a clear error.
 */
import type Database from 'better-sqlite3';
import { StoreError } from '../errors';
import type { Migration } from '../migrations';

export interface MigrationReport {
  /** Schema version before, and after. */
  from: number;
  to: number;
  applied: number[];
}

export function checkMigrations(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new StoreError('bad_migrations', `migration #${i + 1} (${m.name}) has version ${m.version}; versions must run 1, 2, 3… without gaps`);
  });
}

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
  const latest = migrations.length;
  const run = db.transaction((): MigrationReport => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    )`);
    const from = currentSchemaVersion(db);
    if (from > latest) {
      throw new StoreError(
        'schema_too_new',
        `${label} is at schema version ${from}, but this penguin-gateway only knows versions up to ${latest}: ` +
          'it was written by a newer release. Run that release (or newer), or restore a backup taken before the upgrade.',
      );
    }
    const applied: number[] = [];
    for (const m of migrations.slice(from)) {
      try {
        db.exec(m.sql);
      } catch (e) {
        throw new StoreError('migration_failed', `migration ${m.version} (${m.name}) failed on ${label}: ${(e as Error).message}`, { cause: e });
      }
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now());
      applied.push(m.version);
    }
    return { from, to: Math.max(from, latest), applied };
  });
  return run.immediate();
}
