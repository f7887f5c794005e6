/**
 * Shared plumbing of the SQLite store: one connection, prepared statements cached by their SQL text, an
 * immediate-mode transaction helper and the clock. Every repository module builds on this and nothing else.
 * With `groupCommit` (the gateway's own connection), writes share one transaction (BEGIN IMMEDIATE at the
 * first, COMMIT when the event-loop turn ends, or, while commits follow each other closely, once
 * COMMIT_SPACING_MS has passed since the last), so a burst of new conversations pays a commit every few
 * milliseconds instead of one per row; `committed()` resolves once what was written so far is committed (the
 * store's callers wait for it). Another process's writer waits at most that turn for the lock; a second
 * connection in the same process would wait on a turn that cannot end, so other openers write one by one.
 */
import type Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';

/** Under load, commits are at least this far apart (a quiet store commits at the end of the turn). */
export const COMMIT_SPACING_MS = 4;

interface Batch {
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class Sql {
  private readonly cache = new Map<string, Database.Statement>();
  private batch?: Batch;
  private lastCommitAt = -Infinity;
  /** Counts write calls, so a caller can tell whether its call wrote. */
  writes = 0;

  constructor(
    readonly db: Database.Database,
    readonly now: () => number,
    private readonly groupCommit = false,
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
    const s = this.stmt(sql);
    return this.write(() => s.run(...params));
  }

  /** All of `fn` or none of it (a savepoint inside the turn's transaction). */
  tx<T>(fn: () => T): T {
    return this.write(() => this.db.transaction(fn).immediate());
  }

  /** Resolves when every write made so far is committed; rejects when their transaction was not. */
  committed(): Promise<void> {
    return this.batch?.done ?? Promise.resolve();
  }

  /** Commits the open transaction now (before closing the connection). */
  commitNow(): void {
    this.commit();
  }

  private write<T>(fn: () => T): T {
    this.writes++;
    this.begin();
    try {
      return fn();
    } catch (e) {
      // Some errors (disk full, I/O) end the whole transaction: the turn's earlier writes are gone too.
      if (this.batch && !this.db.inTransaction) this.settle(e);
      throw e;
    }
  }

  /** BEGIN IMMEDIATE: takes the write lock up front, so two processes never deadlock upgrading a read. */
  private begin(): void {
    if (!this.groupCommit || this.batch || this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be waiting yet; a failed commit is still reported to every caller that does wait.
    done.catch(() => undefined);
    this.batch = { done, resolve, reject };
    const wait = this.lastCommitAt + COMMIT_SPACING_MS - performance.now();
    if (wait > 0) setTimeout(() => this.commit(), wait);
    else setImmediate(() => this.commit());
  }

  private commit(): void {
    if (!this.batch) return;
    if (!this.db.open || !this.db.inTransaction) {
      this.settle(this.db.open ? undefined : new Error('the database was closed before its writes were committed'));
      return;
    }
    try {
      this.db.exec('COMMIT');
      this.lastCommitAt = performance.now();
      this.settle();
    } catch (e) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // the connection is unusable; the callers hear the commit's error
      }
      this.settle(e);
    }
  }

  private settle(err?: unknown): void {
    const b = this.batch;
    this.batch = undefined;
    if (!b) return;
    if (err === undefined) b.resolve();
    else b.reject(err);
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
