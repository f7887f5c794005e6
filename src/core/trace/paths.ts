/**
 * Trace file layout (engine.md §0, §5): `<root>/<project>/agents/<agent>/traces/<yyyy-mm-dd>/<sessionId>_<NNN>.jsonl`.
 * Session ids are `session-YYYY-MM-DD-HH-mm-ss-<8hex>` in local time, so they sort chronologically and
 * name their own date directory; one file per model context, NNN counting from 001.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from '../random-hex';

const SESSION_ID_RE = /^session-(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8})$/;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function newSessionId(now: Date = new Date()): string {
  const d = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const t = `${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return `session-${d}-${t}-${randomHex(4)}`;
}

export function isSessionId(s: string): boolean {
  return SESSION_ID_RE.test(s);
}

/** The `YYYY-MM-DD` date directory a session's traces live in. */
export function sessionDate(sessionId: string): string {
  const m = SESSION_ID_RE.exec(sessionId);
  if (!m) throw new RangeError(`not a session id: ${JSON.stringify(sessionId)}`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

export function tracesDir(root: string, projectId: string, agentId: string): string {
  return join(root, projectId, 'agents', agentId, 'traces');
}

export function traceFileName(sessionId: string, index: number): string {
  return `${sessionId}_${pad(index, 3)}.jsonl`;
}

export function traceFilePath(dir: string, sessionId: string, index: number): string {
  return join(dir, sessionDate(sessionId), traceFileName(sessionId, index));
}

/** Every trace file of a session, ascending by index; [] when there is none. */
export async function listTraceFiles(dir: string, sessionId: string): Promise<{ path: string; index: number }[]> {
  const dateDir = join(dir, sessionDate(sessionId));
  let names: string[];
  try {
    names = await readdir(dateDir);
  } catch {
    return [];
  }
  const prefix = `${sessionId}_`;
  const out: { path: string; index: number }[] = [];
  for (const n of names) {
    if (!n.startsWith(prefix) || !n.endsWith('.jsonl')) continue;
    const idx = Number(n.slice(prefix.length, -'.jsonl'.length));
    if (Number.isInteger(idx) && idx > 0) out.push({ path: join(dateDir, n), index: idx });
  }
  return out.sort((a, b) => a.index - b.index);
}

/** Every session id with at least one trace file under `dir`, oldest first. */
export async function listSessionIds(dir: string): Promise<string[]> {
  let dates: string[];
  try {
    dates = await readdir(dir);
  } catch {
    return [];
  }
  const ids = new Set<string>();
  for (const d of dates) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) continue;
    let names: string[] = [];
    try {
      names = await readdir(join(dir, d));
    } catch {
      continue;
    }
    for (const n of names) {
      const m = /^(session-.+)_\d+\.jsonl$/.exec(n);
      if (m && isSessionId(m[1])) ids.add(m[1]);
    }
  }
  return [...ids].sort();
}
