/**
 * `Sql` on a pg pool. Statements are rewritten once into PostgreSQL's dialect (../dialect.ts) and cached;
 * BIGINT and NUMERIC (what SUM of a BIGINT gives) come back as JS numbers, since the schema holds only
 * integers (epoch ms, counts) far below 2^53. A transaction takes one client from the pool and runs
 * SERIALIZABLE, retried a few times after a serialization failure or deadlock, so it acts as if alone.
 */
import type pg from 'pg';
import { pgDriver } from './pg-driver';
import { postgres } from '../dialect';
import type { Sql } from '../tables/sql';

const INT8 = 20;
const NUMERIC = 1700;
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? (v: string) => Number(v) : pgDriver().types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 10;
const code = (e: unknown) => (e as { code?: unknown })?.code;
// Exponential with full jitter: a burst of conflicting transactions spreads out instead of colliding again.
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 2 ** attempt)));

type Queryable = Pick<pg.ClientBase, 'query'>;

class Statements implements Sql {
  constructor(
    protected readonly db: Queryable,
    readonly now: () => number,
    protected readonly texts: Map<string, string>,
  ) {}

  protected text(sql: string): string {
    let t = this.texts.get(sql);
    if (t === undefined) this.texts.set(sql, (t = postgres.query(sql)));
    return t;
  }

  async get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    return (await this.db.query(this.text(sql), params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    return (await this.db.query(this.text(sql), params)).rows as T[];
  }

  async run(sql: string, ...params: unknown[]): Promise<number> {
    return (await this.db.query(this.text(sql), params)).rowCount ?? 0;
  }

  /** Inside a transaction: already on its client. */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    return fn(this);
  }
}

export class PgSql extends Statements {
  constructor(
    private readonly pool: pg.Pool,
    now: () => number,
  ) {
    super(pool, now, new Map());
  }

  override async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        const out = await fn(new Statements(client, this.now, this.texts));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch((r: Error) => (broken = r));
        if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has(code(e) as string)) throw e;
      } finally {
        client.release(broken);
      }
      await pause(attempt);
    }
  }
}
