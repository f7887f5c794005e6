/**
 * Shared plumbing of the SQLite store: one connection, prepared statements cached by their SQL text, an
 * immediate-mode transaction helper and the clock. Every repository module builds on this and nothing else.
 */
import type Database from 'better-sqlite3';

export class Sql {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(
    readonly db: Database.Database,
    readonly now: () => number,
  ) {}

  stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.stmt(sql).run(...params);
  }

  /** BEGIN IMMEDIATE: takes the write lock up front, so two processes never deadlock upgrading a read. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}

/**
 * Builds `WHERE a = ? AND b >= ?` from the entries whose value is defined (values line up with the
 * placeholders), plus `fixed` clauses that take no parameter.
 */
export function where(conds: [clause: string, value: unknown][], fixed: string[] = []): { sql: string; params: unknown[] } {
  const used = conds.filter(([, v]) => v !== undefined);
  const clauses = [...used.map(([c]) => c), ...fixed];
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params: used.map(([, v]) => v) };
}

/** Local calendar date `YYYY-MM-DD` of an instant (the same local-time convention as session ids). */
export function localDate(ts: number): string {
  const d = new Date(ts);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function clampLimit(limit: number | undefined, fallback: number, max = 10_000): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}
