/**
 * `openGatewayStore({dbPath, home})`: how the gateway and the CLI open their store. The database is only an
 * index of the files, so a missing one is rebuilt from the traces and the journal, and one SQLite cannot
 * read (not a database, corrupt pages) is moved aside to `<db>.corrupt-<time>` and rebuilt; `rebuilt` says
 * which happened so the caller can log it. Returns the journaled store everyone writes through and the
 * bare index (for reindex).
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { StoreError } from './errors';
import { JournalFile, journalPath } from './journal/journal-file';
import { journaled } from './journal/journaled-store';
import { reindexFromFiles, type ReindexReport } from './reindex';
import { openSqliteStore, type SqliteStore } from './sqlite/open';
import type { GatewayStore } from './types';

export interface Rebuilt {
  reason: 'missing' | 'corrupt';
  /** Where the unreadable database was moved. */
  movedTo?: string;
  /** What SQLite said about it. */
  error?: string;
  report: ReindexReport;
}

export interface GatewayStoreHandle {
  store: GatewayStore;
  index: SqliteStore;
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

export async function openGatewayStore(o: { dbPath: string; home: string; now?: () => number; rebuild?: boolean; groupCommit?: boolean }): Promise<GatewayStoreHandle> {
  const now = o.now ?? Date.now;
  const journal = new JournalFile(journalPath(o.home));
  const inMemory = o.dbPath === ':memory:';
  const missing = !inMemory && isMissing(o.dbPath);
  let index: SqliteStore;
  let reason: Rebuilt['reason'] | undefined = missing ? 'missing' : undefined;
  let movedTo: string | undefined;
  let error: string | undefined;
  try {
    index = openSqliteStore(o.dbPath, { now, groupCommit: o.groupCommit });
    error = missing || inMemory ? undefined : damage(index);
    if (error) await index.close();
  } catch (e) {
    error = unreadable(e);
    if (!error) throw e;
  }
  if (error) {
    reason = 'corrupt';
    movedTo = moveAside(o.dbPath, now());
    index = openSqliteStore(o.dbPath, { now, groupCommit: o.groupCommit });
  }
  const handle: GatewayStoreHandle = { store: journaled(index!, journal, now), index: index!, journal };
  if (reason && o.rebuild !== false) {
    const report = await reindexFromFiles(index!, { home: o.home, now });
    const found = report.sessions > 0 || report.journalEntries > 0 || report.problems.length > 0;
    if (reason === 'corrupt' || found) handle.rebuilt = { reason, report, ...(movedTo ? { movedTo } : {}), ...(error ? { error } : {}) };
  }
  return handle;
}

/** One line for the log or the terminal: what was wrong with the database and what the rebuild found. */
export function describeRebuild(r: Rebuilt, dbPath: string): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const why = r.reason === 'missing' ? `${dbPath} was missing` : `${dbPath} could not be read (${r.error}); moved it to ${r.movedTo}`;
  const { sessions, usageRows, journalEntries, problems } = r.report;
  const found = [n(sessions, 'session', 'sessions'), n(usageRows, 'usage row', 'usage rows'), n(journalEntries, 'journal entry', 'journal entries')];
  if (problems.length > 0) found.push(n(problems.length, 'problem', 'problems'));
  return `${why}; rebuilt the index from the files: ${found.join(', ')}`;
}
