/**
 * Wraps every method of a repository so a driver exception reaches callers as a StoreError (`constraint`
 * when the dialect says the caller broke a rule of the schema, else `db_failed`): nothing above the store
 * depends on better-sqlite3 or pg.
 */
import type { Dialect } from '../dialect';
import { StoreError } from '../errors';

export function toStoreError(e: unknown, dialect: Dialect): StoreError {
  if (e instanceof StoreError) return e;
  const message = e instanceof Error || (e !== null && typeof e === 'object' && 'message' in e) ? String((e as { message: unknown }).message) : String(e);
  return new StoreError(dialect.isConstraint(e) ? 'constraint' : 'db_failed', message, { cause: e });
}

type AsyncMethods<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : T[K] };

export function guarded<T extends object>(methods: T, dialect: Dialect): AsyncMethods<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods)) {
    out[name] =
      typeof fn === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
            } catch (e) {
              throw toStoreError(e, dialect);
            }
          }
        : fn;
  }
  return out as AsyncMethods<T>;
}
