/**
 * `reindexFromTraces(store, {home})`: rebuilds session rows and usage rows from the trace files under
 * `<home>/<project>/agents/<agent>/traces` (the CLI's `reindex`). Traces are the truth, so running it
 * twice gives the same index. Subagent sessions are found through their parents' `subagent` events: their
 * usage is attributed to the top-level session with `origin_session_id` naming the subagent, exactly as
 * the live recorder does. Unreadable files are reported, never thrown.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isPayload } from '../../core/omnimessage/guards';
import { listSessionIds, readAllTraces, tracesDir } from '../../core/trace';
import type { GatewayStore, UsageInput } from './types';
import { usageRowFromMessage } from './usage-rows';

export interface ReindexReport {
  sessions: number;
  subagentSessions: number;
  usageRows: number;
  /** Trace files or sessions that could not be read, with why. */
  problems: { path?: string; message: string }[];
}

interface ScannedSession {
  id: string;
  project: string;
  agent: string;
  createdAt: number;
  lastActiveAt: number;
  children: string[];
  /** Usage of this session's own requests, not yet attributed. */
  usage: { msg: Parameters<typeof usageRowFromMessage>[0]; provider: string; model_id: string }[];
}

async function subdirs(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

export async function reindexFromTraces(store: GatewayStore, opts: { home: string }): Promise<ReindexReport> {
  const report: ReindexReport = { sessions: 0, subagentSessions: 0, usageRows: 0, problems: [] };
  const scanned = new Map<string, ScannedSession>();

  for (const project of await subdirs(opts.home)) {
    for (const agent of await subdirs(join(opts.home, project, 'agents'))) {
      const dir = tracesDir(opts.home, project, agent);
      for (const id of await listSessionIds(dir)) {
        const { files, errors } = await readAllTraces(dir, id);
        for (const e of errors) report.problems.push({ path: e.path, message: e.message });
        if (files.length === 0) continue;
        if (scanned.has(id)) {
          report.problems.push({ path: dir, message: `session ${id} also has traces under another agent; kept the first` });
          continue;
        }
        const s: ScannedSession = { id, project, agent, createdAt: Date.parse(files[0].meta.timestamp), lastActiveAt: 0, children: [], usage: [] };
        for (const f of files) {
          const { provider, model_id } = f.meta.payload;
          for (const m of [f.meta, ...f.messages]) {
            const ts = Date.parse(m.timestamp);
            if (!Number.isNaN(ts) && ts > s.lastActiveAt) s.lastActiveAt = ts;
            if (isPayload(m, 'subagent')) s.children.push(m.payload.session_id);
            else if (isPayload(m, 'token_usage') || isPayload(m, 'request_end')) s.usage.push({ msg: m, provider, model_id });
          }
        }
        if (Number.isNaN(s.createdAt)) s.createdAt = s.lastActiveAt;
        scanned.set(id, s);
      }
    }
  }

  const parentOf = new Map<string, string>();
  for (const s of scanned.values()) for (const c of s.children) if (scanned.has(c) && c !== s.id && !parentOf.has(c)) parentOf.set(c, s.id);
  const topOf = (id: string): string => {
    const seen = new Set<string>([id]);
    let cur = id;
    for (let p = parentOf.get(cur); p !== undefined && !seen.has(p); p = parentOf.get(cur)) {
      seen.add(p);
      cur = p;
    }
    return cur;
  };

  for (const s of scanned.values()) {
    const parent = parentOf.get(s.id) ?? null;
    await store.upsertTracedSession({ session_id: s.id, project_id: s.project, agent_id: s.agent, parent_session_id: parent, created_at: s.createdAt, last_active_at: s.lastActiveAt });
    report.sessions++;
    if (parent) report.subagentSessions++;
  }

  const rowsByTop = new Map<string, UsageInput[]>();
  for (const s of scanned.values()) if (!parentOf.has(s.id)) rowsByTop.set(s.id, []);
  for (const s of scanned.values()) {
    const top = scanned.get(topOf(s.id))!;
    const row = await store.getSession(top.id);
    for (const u of s.usage) {
      const r = usageRowFromMessage(u.msg, {
        project_id: top.project,
        agent_id: top.agent,
        session_id: top.id,
        origin_session_id: s.id === top.id ? null : s.id,
        route: row?.route ?? null,
        platform: row?.platform ?? null,
        provider: u.provider,
        model_id: u.model_id,
      });
      if (r) rowsByTop.get(top.id)!.push(r);
    }
  }
  for (const [top, rows] of rowsByTop) {
    rows.sort((a, b) => a.ts - b.ts);
    await store.replaceUsage([top], rows);
    report.usageRows += rows.length;
  }
  return report;
}
