/**
 * `openGatewayStore({dbPath, databaseUrl, home})`: how the gateway and the CLI open their store, on
 * PostgreSQL when `databaseUrl` is set, else SQLite at `dbPath`. The database is only an index of the
 * files, so a missing SQLite file is rebuilt from the traces and the journal, and one SQLite cannot read
 * (not a database, corrupt pages) is moved aside to `<db>.corrupt-<time>` and rebuilt; a PostgreSQL
 * database without the gateway's schema (this open created it) is rebuilt too. `rebuilt` says which
 * happened so the caller can log it. Returns the journaled store everyone writes through and the bare index.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { StoreError } from './errors';
import { JournalFile, journalPath } from './journal/journal-file';
import { journaled } from './journal/journaled-store';
import { reindexFromFiles, type ReindexReport } from './reindex';
import { openPostgresStore } from './postgres/lazy-open';
import { openSqliteStore, type SqliteStore } from './sqlite/open';
import type { GatewayStore, IndexStore } from './types';

export interface Rebuilt {
  /** `empty`: a PostgreSQL database that had no gateway schema yet. */
  reason: 'missing' | 'corrupt' | 'empty';
  /** Where the unreadable database was moved. */
  movedTo?: string;
  /** What SQLite said about it. */
  error?: string;
  report: ReindexReport;
}

export interface GatewayStoreHandle {
  store: GatewayStore;
  index: IndexStore;
  journal: JournalFile;
  rebuilt?: Rebuilt;
}

const UNREADABLE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

function unreadable(e: unknown): string | undefined {
  if (!(e instanceof StoreError) || e.code !== 'open_failed') return undefined;
  const code = (e.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && UNREADABLE.has(code) ? e.message : undefined;
}

function isMissing(path: string): boolean {
  return !existsSync(path) || statSync(path).size === 0;
}

/** An index that opens but whose pages SQLite finds damaged counts as unreadable too. */
function damage(index: SqliteStore): string | undefined {
  try {
    const rows = index.db.pragma('quick_check') as { quick_check: string }[];
    return rows[0]?.quick_check === 'ok' ? undefined : `integrity check: ${rows.map((r) => r.quick_check).slice(0, 3).join('; ')}`;
  } catch (e) {
    return `integrity check: ${(e as Error).message}`;
  }
}

function moveAside(path: string, now: number): string {
  const to = `${path}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, to + suffix);
  return to;
}

interface Opened {
  index: IndexStore;
  reason?: Rebuilt['reason'];
  movedTo?: string;
  error?: string;
}

async function openSqliteIndex(dbPath: string, now: () => number): Promise<Opened> {
  const inMemory = dbPath === ':memory:';
  const missing = !inMemory && isMissing(dbPath);
  let index: SqliteStore | undefined;
  let error: string | undefined;
  try {
    index = openSqliteStore(dbPath, { now });
    error = missing || inMemory ? undefined : damage(index);
    if (error) await index.close();
  } catch (e) {
    error = unreadable(e);
    if (!error) throw e;
  }
  if (!error) return { index: index!, ...(missing ? { reason: 'missing' as const } : {}) };
  const movedTo = moveAside(dbPath, now());
  return { index: openSqliteStore(dbPath, { now }), reason: 'corrupt', movedTo, error };
}

async function openPostgresIndex(url: string, now: () => number): Promise<Opened> {
  const index = await openPostgresStore(url, { now });
  return { index, ...(index.migration.from === 0 ? { reason: 'empty' as const } : {}) };
}

export async function openGatewayStore(o: { dbPath: string; databaseUrl?: string; home: string; now?: () => number; rebuild?: boolean }): Promise<GatewayStoreHandle> {
  const now = o.now ?? Date.now;
  const journal = new JournalFile(journalPath(o.home));
  const { index, reason, movedTo, error } = o.databaseUrl ? await openPostgresIndex(o.databaseUrl, now) : await openSqliteIndex(o.dbPath, now);
  const handle: GatewayStoreHandle = { store: journaled(index, journal, now), index, journal };
  if (reason && o.rebuild !== false) {
    const report = await reindexFromFiles(index, { home: o.home, now });
    const found = report.sessions > 0 || report.journalEntries > 0 || report.problems.length > 0;
    if (reason === 'corrupt' || found) handle.rebuilt = { reason, report, ...(movedTo ? { movedTo } : {}), ...(error ? { error } : {}) };
  }
  return handle;
}

/** One line for the log or the terminal: what was wrong with the database (`where` it is) and what the rebuild found. */
export function describeRebuild(r: Rebuilt, where: string): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const why = {
    missing: `${where} was missing`,
    empty: `${where} had no gateway schema yet`,
    corrupt: `${where} could not be read (${r.error}); moved it to ${r.movedTo}`,
  }[r.reason];
  const { sessions, usageRows, journalEntries, problems } = r.report;
  const found = [n(sessions, 'session', 'sessions'), n(usageRows, 'usage row', 'usage rows'), n(journalEntries, 'journal entry', 'journal entries')];
  if (problems.length > 0) found.push(n(problems.length, 'problem', 'problems'));
  return `${why}; rebuilt the index from the files: ${found.join(', ')}`;
}
