/**
 * What every repository builds on, whatever the database: `Sql` runs statements written in the dialect
 * both engines share (see ../dialect.ts) and hands out one transaction at a time; plus the WHERE builder,
 * limit clamping and local dates. A repository uses nothing else, so each works on SQLite and PostgreSQL.
 */
export interface Sql {
  readonly now: () => number;
  get<T>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Returns how many rows changed. */
  run(sql: string, ...params: unknown[]): Promise<number>;
  /**
   * Runs `fn` as one transaction no other writer interleaves with: SQLite runs it as a savepoint of a group
   * commit holding the write lock, and again on its own should SQLite roll the whole group back; PostgreSQL
   * runs it SERIALIZABLE and runs it again after a serialization failure. So `fn` must do nothing but
   * database work through the handle it is given.
   */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T>;
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

/** `?, ?, ?` for an IN list of `n` values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** A long IN list in parts SQLite accepts (it has no array parameters and caps a statement's parameters). */
export function chunked<T>(xs: readonly T[], size = 400): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

export function clampLimit(limit: number | undefined, fallback: number, max = 10_000): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

/** Rows an UPDATE … RETURNING gave back, in a fixed order (neither engine promises one). */
export function sortedBy<T>(rows: T[], ...keys: (keyof T)[]): T[] {
  const cmp = (a: unknown, b: unknown) => (a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1);
  return rows.sort((x, y) => keys.reduce((r, k) => r || cmp(x[k], y[k]), 0));
}
