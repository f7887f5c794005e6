/**
 * Wraps every method of a repository so a driver exception reaches callers as a StoreError: a
 * PostgreSQL store can raise the same codes, so nothing above the store depends on better-sqlite3. A call
 * that wrote resolves only once its transaction is committed (sql.ts groups the writes of one turn).
 */
import { StoreError } from '../errors';
import type { Sql } from './sql';

export function toStoreError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : '';
  const message = e instanceof Error || (e !== null && typeof e === 'object' && 'message' in e) ? String((e as { message: unknown }).message) : String(e);
  return new StoreError(code.startsWith('SQLITE_CONSTRAINT') ? 'constraint' : 'db_failed', message, { cause: e });
}

type AsyncMethods<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : T[K] };

export function guarded<T extends object>(methods: T, q: Pick<Sql, 'writes' | 'committed'>): AsyncMethods<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods)) {
    out[name] =
      typeof fn === 'function'
        ? async (...args: unknown[]) => {
            try {
              const writes = q.writes;
              const result = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
              if (q.writes !== writes) await q.committed();
              return result;
            } catch (e) {
              throw toStoreError(e);
            }
          }
        : fn;
  }
  return out as AsyncMethods<T>;
}
