/**
 * Doctor's local checks, all read-only: the data root can be written (or created) and its file system has
 * room, the database opens read-only with a schema this release can use and passes SQLite's quick_check,
 * an admin token exists or will be generated, and the listener's reach. A database that does not exist
 * yet is fine: start creates it.
 */
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdtempSync, rmSync, statSync, statfsSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import type { GatewayConfig } from '../../config';
import { currentSchemaVersion, MIGRATIONS } from '../../store';
import type { CheckResult } from './types';

export function checkHome(home: string): CheckResult {
  const name = 'data root';
  const fix = 'set PENGUIN_HOME (or home: in the config) to a directory the gateway user can write, or fix its permissions';
  if (existsSync(home)) {
    if (!statSync(home).isDirectory()) return { name, status: 'fail', detail: `${home} exists but is not a directory`, fix };
    try {
      rmSync(mkdtempSync(join(home, '.doctor-')), { recursive: true, force: true });
    } catch (e) {
      return { name, status: 'fail', detail: `${home} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, fix };
    }
    return { name, status: 'ok', detail: `${home} is writable` };
  }
  let parent = dirname(home);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    return { name, status: 'fail', detail: `${home} does not exist and cannot be created (${parent} is not writable)`, fix };
  }
  return { name, status: 'ok', detail: `${home} does not exist yet; start creates it` };
}

/** Below this the database and traces cannot grow: replies fail mid-write. */
export const SPACE_FAIL_BYTES = 64 * 1024 ** 2;
/** Below this a busy gateway fills the disk within days. */
export const SPACE_WARN_BYTES = 1024 ** 3;

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

const mib = (n: number) => `${Math.floor(n / 1024 ** 2)} MiB`;

/** Free space where the data root is (or, before the first start, where it will be created). */
export function checkSpace(home: string, free: (dir: string) => number = freeBytes): CheckResult {
  const name = 'disk space';
  let dir = home;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  let bytes: number;
  try {
    bytes = free(dir);
  } catch (e) {
    return { name, status: 'warn', detail: `cannot tell the free space of ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  const fix = `free space on the file system of ${dir}, or set PENGUIN_HOME to a larger one`;
  if (bytes < SPACE_FAIL_BYTES) return { name, status: 'fail', detail: `only ${mib(bytes)} free for ${home}: the database and traces cannot grow`, fix };
  if (bytes < SPACE_WARN_BYTES) return { name, status: 'warn', detail: `${mib(bytes)} free for ${home}`, fix };
  return { name, status: 'ok', detail: `${mib(bytes)} free for ${home}` };
}

/** Where the admin token comes from: the environment, the `stored` hashes (undefined: unknown), or start. */
export function adminTokenCheck(config: Pick<GatewayConfig, 'admin_token'>, stored: number | undefined): CheckResult {
  const name = 'admin token';
  if (config.admin_token !== undefined) return { name, status: 'ok', detail: 'set by PENGUIN_ADMIN_TOKEN' };
  if (stored && stored > 0) return { name, status: 'ok', detail: `${stored} generated token${stored === 1 ? '' : 's'} stored (as hashes)` };
  return { name, status: 'ok', detail: 'none yet: start generates one and prints it once' };
}

export function checkDatabase(config: Pick<GatewayConfig, 'db_path' | 'admin_token'>): CheckResult[] {
  const latest = MIGRATIONS.length;
  const token = (stored: number | undefined) => adminTokenCheck(config, stored);
  if (!existsSync(config.db_path)) {
    return [{ name: 'database', status: 'ok', detail: `${config.db_path} does not exist yet; start creates it (schema version ${latest}) and fills it from the traces and the journal, if any` }, token(0)];
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(config.db_path, { readonly: true, fileMustExist: true });
    const version = currentSchemaVersion(db);
    const check = db.pragma('quick_check', { simple: true });
    const stored = version >= 1 ? (db.prepare('SELECT COUNT(*) AS n FROM admin_tokens').get() as { n: number }).n : 0;
    let result: CheckResult;
    if (check !== 'ok') {
      result = { name: 'database', status: 'warn', detail: `${config.db_path} failed SQLite's integrity check: ${String(check)}`, fix: 'start moves it aside (gateway.db.corrupt-<time>) and rebuilds the index from the traces and the journal; nothing is lost' };
    } else if (version > latest) {
      result = { name: 'database', status: 'fail', detail: `${config.db_path} is at schema version ${version}, newer than this release knows (${latest})`, fix: 'run the release that wrote it (or newer), or restore a backup taken before the upgrade' };
    } else if (version < latest) {
      result = { name: 'database', status: 'ok', detail: `${config.db_path} is at schema version ${version}; start (or \`penguin-gateway migrate\`) brings it to ${latest}` };
    } else {
      result = { name: 'database', status: 'ok', detail: `${config.db_path} opens, schema version ${version} (current)` };
    }
    return [result, token(stored)];
  } catch (e) {
    return [
      unreadableDatabase(config.db_path, e),
      token(undefined),
    ];
  } finally {
    db?.close();
  }
}

/** Damage start repairs by itself (a rebuild from the files) warns; anything else (permissions) fails. */
function unreadableDatabase(path: string, e: unknown): CheckResult {
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return { name: 'database', status: 'warn', detail: `${path} is not a readable database: ${(e as Error).message}`, fix: 'start moves it aside (gateway.db.corrupt-<time>) and rebuilds the index from the traces and the journal; nothing is lost' };
  }
  return { name: 'database', status: 'fail', detail: `cannot read ${path}: ${(e as Error).message}`, fix: 'check the file\'s permissions and owner: the gateway must read and write it' };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

export function checkListen(listen: GatewayConfig['listen']): CheckResult {
  const addr = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  if (isLoopback(listen.host)) return { name: 'listen', status: 'ok', detail: `${addr} (this machine only)` };
  return {
    name: 'listen',
    status: 'warn',
    detail: `${addr} is reachable from other machines: the admin API and dashboard are exposed there`,
    fix: 'put it behind a TLS reverse proxy and keep the admin token secret, or set PENGUIN_GATEWAY_HOST=127.0.0.1',
  };
}
