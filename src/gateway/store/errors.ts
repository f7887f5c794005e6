/**
 * The one error type of the store, whatever the database behind it. At open: `open_failed`,
 * `schema_too_new`, `bad_migrations`, `migration_failed`. From a method: `constraint` (the caller broke a
 * rule of the schema: a duplicate id, a binding to an unknown session, a value outside its set) or
 * `db_failed` (the database itself: disk, lock timeout, closed handle). Callers switch on `code`.
 */
export type StoreErrorCode = 'open_failed' | 'schema_too_new' | 'bad_migrations' | 'migration_failed' | 'constraint' | 'db_failed';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}
