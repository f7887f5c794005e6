/**
 * What both backends' migration runners share: the `schema_migrations` table that records each applied
 * version, the check that versions run 1, 2, 3… without gaps, the refusal of a schema newer than this
 * release, and the report. Each backend runs the pending migrations in one transaction of its own.
 */
import { StoreError } from '../errors';
import type { Migration } from './types';

export interface MigrationReport {
  /** Schema version before, and after. */
  from: number;
  to: number;
  applied: number[];
}

export const MIGRATION_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`;

export const RECORD_MIGRATION = 'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)';

export function checkMigrations(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new StoreError('bad_migrations', `migration #${i + 1} (${m.name}) has version ${m.version}; versions must run 1, 2, 3… without gaps`);
  });
}

/** The migrations still to apply to a schema at version `from`; refuses one written by a newer release. */
export function pendingMigrations(migrations: readonly Migration[], from: number, label: string): readonly Migration[] {
  const latest = migrations.length;
  if (from > latest) {
    throw new StoreError(
      'schema_too_new',
      `${label} is at schema version ${from}, but this penguin-gateway only knows versions up to ${latest}: ` +
        'it was written by a newer release. Run that release (or newer), or restore a backup taken before the upgrade.',
    );
  }
  return migrations.slice(from);
}

export function migrationFailed(m: Migration, label: string, e: unknown): StoreError {
  return new StoreError('migration_failed', `migration ${m.version} (${m.name}) failed on ${label}: ${(e as Error).message}`, { cause: e });
}
