/**
 * The `pg` driver, required at first use: a gateway on SQLite (the default) never loads it, which keeps
 * ~30 ms and its modules out of every start. Store, bus and leadership code import its types only and
 * take the driver from here when they first connect.
 */
import type PgModule from 'pg';

let driver: typeof PgModule | undefined;

export function pgDriver(): typeof PgModule {
  return (driver ??= require('pg') as typeof PgModule);
}
