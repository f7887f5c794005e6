/**
 * `Sql` on one better-sqlite3 connection, with group commit: the writes and transactions issued in one turn
 * of the event loop (its callbacks and their promise chains) run as one BEGIN IMMEDIATE … COMMIT; a failing
 * statement or transaction is undone (a transaction in its own SAVEPOINT, a statement by SQLite itself) and
 * rejected alone, each caller resolved once the group is committed. Reads run at once unless writes are
 * queued or a group is open (then behind them); a group holds its file's gate, so no other connection of
 * this process interleaves.
 */
import type Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { sqlite } from '../dialect';
import type { Sql } from '../tables/sql';

class Gate {
  open: Promise<void> | undefined;
}
const gates = new Map<string, Gate>();

function gateOf(path: string): Gate {
  if (path === ':memory:') return new Gate();
  const key = resolve(path);
  let g = gates.get(key);
  if (!g) gates.set(key, (g = new Gate()));
  return g;
}

type Mode = 'get' | 'all' | 'run';
interface Settle {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}
type Job = Settle & ({ kind: 'stmt'; stmt: Database.Statement; mode: Mode; params: unknown[] } | { kind: 'tx'; fn: (q: Sql) => Promise<unknown> });

function exec(stmt: Database.Statement, mode: Mode, params: unknown[]): unknown {
  if (mode === 'get') return stmt.get(...params);
  if (mode === 'all') return stmt.all(...params);
  return stmt.run(...params).changes;
}

const isRead = (j: Job): boolean => j.kind === 'stmt' && j.stmt.readonly;

/** The group's transaction ended under it (SQLite rolls back on I/O errors, a full disk, out of memory). */
class GroupLost extends Error {}

/** Transaction control, prepared once: `exec` compiles its SQL on every call. */
interface Control {
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  savepoint: Database.Statement;
  release: Database.Statement;
  rollbackTo: Database.Statement;
}

export class SqliteSql implements Sql {
  private readonly cache = new Map<string, Database.Statement>();
  private readonly gate: Gate;
  /** The handle a transaction's function gets: the same connection, inside the open group. */
  private readonly inside: Sql;
  private queue: Job[] = [];
  private flushing: Promise<void> | undefined;
  private control?: Control;

  constructor(
    readonly db: Database.Database,
    path: string,
    readonly now: () => number,
  ) {
    this.gate = gateOf(path);
    this.inside = {
      now,
      get: async (sql, ...p) => this.stmt(sql).get(...p) as never,
      all: async (sql, ...p) => this.stmt(sql).all(...p) as never,
      run: async (sql, ...p) => this.stmt(sql).run(...p).changes,
      tx: (fn) => fn(this.inside),
    };
  }

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sqlite.query(sql));
      this.cache.set(sql, s);
    }
    return s;
  }

  private get ctl(): Control {
    return (this.control ??= {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT job'),
      release: this.db.prepare('RELEASE job'),
      rollbackTo: this.db.prepare('ROLLBACK TO job'),
    });
  }

  get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    return this.submit(sql, 'get', params) as Promise<T | undefined>;
  }

  all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    return this.submit(sql, 'all', params) as Promise<T[]>;
  }

  run(sql: string, ...params: unknown[]): Promise<number> {
    return this.submit(sql, 'run', params) as Promise<number>;
  }

  /** Joins the next group as one savepoint; `fn` must do nothing but database work through `q`. */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.enqueue({ kind: 'tx', fn, resolve: resolve as (v: unknown) => void, reject }));
  }

  /** Settles once every statement issued so far has run (before the connection is closed). */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length > 0) await (this.flushing ?? this.flush());
  }

  private async submit(sql: string, mode: Mode, params: unknown[]): Promise<unknown> {
    const stmt = this.stmt(sql);
    if (stmt.readonly && this.queue.length === 0 && !this.gate.open) return exec(stmt, mode, params);
    return new Promise((resolve, reject) => this.enqueue({ kind: 'stmt', stmt, mode, params, resolve, reject }));
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (this.queue.length === 1 && !this.flushing) this.schedule();
  }

  /**
   * The group commits in the loop's check phase: it takes what every callback of this turn (the timers and
   * I/O callbacks that ran, and the promise chains they started) issued. A burst of arrivals read in one
   * turn shares one commit instead of one each (a commit writes every page it changed).
   */
  private schedule(): void {
    setImmediate(() => void this.flush());
  }

  private flush(): Promise<void> {
    this.flushing ??= (async () => {
      try {
        while (this.gate.open) await this.gate.open;
        if (this.queue.length === 0) return;
        let release!: () => void;
        this.gate.open = new Promise((r) => (release = r));
        try {
          await this.runGroup(this.queue.splice(0));
        } finally {
          this.gate.open = undefined;
          release();
        }
      } finally {
        this.flushing = undefined;
        if (this.queue.length > 0) this.schedule();
      }
    })();
    return this.flushing;
  }

  /** BEGIN IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading a read. */
  private async runGroup(jobs: Job[]): Promise<void> {
    if (jobs.every(isRead)) {
      for (const j of jobs) await this.runAlone(j);
      return;
    }
    const ctl = this.ctl;
    try {
      ctl.begin.run();
    } catch (e) {
      // The write lock stayed with another process past the busy timeout: the writes fail with that.
      for (const j of jobs) await (isRead(j) ? this.runAlone(j) : j.reject(e));
      return;
    }
    const settled: (() => void)[] = [];
    try {
      for (const j of jobs) settled.push(j.kind === 'stmt' ? this.inGroup(j) : await this.inSavepoint(j));
      ctl.commit.run();
    } catch (e) {
      if (this.db.inTransaction) ctl.rollback.run();
      // Nothing of the group is kept: each job runs again on its own and gets its own outcome.
      for (const j of jobs) await this.runAlone(j);
      return;
    }
    for (const s of settled) s();
  }

  /**
   * Runs a statement inside the open group; returns how to settle its caller once the group commits. A
   * statement that fails is undone by SQLite alone (its default ABORT), the transaction going on, unless
   * SQLite rolled the whole of it back.
   */
  private inGroup(j: Job & { kind: 'stmt' }): () => void {
    try {
      const out = this.run1(j);
      return () => j.resolve(out);
    } catch (e) {
      if (!this.db.inTransaction) throw new GroupLost('the group transaction was rolled back', { cause: e });
      return () => j.reject(e);
    }
  }

  /** Runs a transaction inside the open group in its own savepoint. */
  private async inSavepoint(j: Job & { kind: 'tx' }): Promise<() => void> {
    const ctl = this.ctl;
    ctl.savepoint.run();
    try {
      const out = await j.fn(this.inside);
      ctl.release.run();
      return () => j.resolve(out);
    } catch (e) {
      if (!this.db.inTransaction) throw new GroupLost('the group transaction was rolled back', { cause: e });
      ctl.rollbackTo.run();
      ctl.release.run();
      return () => j.reject(e);
    }
  }

  private run1(j: Job & { kind: 'stmt' }): unknown {
    return exec(j.stmt, j.mode, j.params);
  }

  /** One job in its own transaction (a statement's implicit one, or BEGIN IMMEDIATE … COMMIT for `tx`). */
  private async runAlone(j: Job): Promise<void> {
    try {
      if (j.kind === 'stmt') return j.resolve(this.run1(j));
      const ctl = this.ctl;
      ctl.begin.run();
      try {
        const out = await j.fn(this.inside);
        ctl.commit.run();
        j.resolve(out);
      } catch (e) {
        if (this.db.inTransaction) ctl.rollback.run();
        throw e;
      }
    } catch (e) {
      j.reject(e);
    }
  }
}
