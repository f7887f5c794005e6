/**
 * `Sql` on one better-sqlite3 connection: prepared statements cached by their SQL text, transactions as
 * BEGIN IMMEDIATE … COMMIT. A transaction's function is async, so while one is open every other statement
 * of this process on the same database file waits at that file's gate: it would otherwise join the open
 * transaction (same connection) or block the thread on the write lock it holds (another connection).
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

export class SqliteSql implements Sql {
  private readonly cache = new Map<string, Database.Statement>();
  private readonly gate: Gate;
  /** The handle a transaction's function gets: the same connection, past the gate. */
  private readonly inside: Sql;

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

  async get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    while (this.gate.open) await this.gate.open;
    return this.stmt(sql).get(...params) as T | undefined;
  }

  async all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    while (this.gate.open) await this.gate.open;
    return this.stmt(sql).all(...params) as T[];
  }

  async run(sql: string, ...params: unknown[]): Promise<number> {
    while (this.gate.open) await this.gate.open;
    return this.stmt(sql).run(...params).changes;
  }

  /** BEGIN IMMEDIATE: takes the write lock up front, so two processes never deadlock upgrading a read. */
  async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    while (this.gate.open) await this.gate.open;
    let release!: () => void;
    this.gate.open = new Promise((r) => (release = r));
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn(this.inside);
        this.db.exec('COMMIT');
        return out;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      this.gate.open = undefined;
      release();
    }
  }
}
