/**
 * `reindexFromFiles(index, {home})`: rebuilds the index from the files (the CLI's `reindex`, and the start
 * of a gateway whose database is missing or corrupt): session and usage rows from the traces under
 * `<home>/<project>/agents/<agent>/traces`, then the gateway journal replayed in order (bindings, routes,
 * titles, modes, who asked for each Task, title-call usage, pairing, allowlist, admin tokens, schedule
 * grants); usage rows are written last, so each takes its user from the restored Tasks exactly as live rows
 * do. Subagent usage goes to the top-level session with `origin_session_id`, as the live recorder does.
 * Running it twice gives the same index.
 * `index` must be the bare store (not journaled). Unreadable files and lines are reported, never thrown.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isPayload } from '../../core/omnimessage/guards';
import { listSessionIds, readAllTraces, tracesDir } from '../../core/trace';
import type { JournalEntry } from './journal/entries';
import { JournalFile, journalPath } from './journal/journal-file';
import type { GatewayStore, UsageInput } from './types';
import { usageRowFromMessage } from './usage-rows';

export interface ReindexReport {
  sessions: number;
  subagentSessions: number;
  usageRows: number;
  /** Journal entries replayed. */
  journalEntries: number;
  /** Trace files, journal lines or sessions that could not be read or applied, with why. */
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

export async function reindexFromFiles(store: GatewayStore, opts: { home: string; now?: () => number }): Promise<ReindexReport> {
  const report: ReindexReport = { sessions: 0, subagentSessions: 0, usageRows: 0, journalEntries: 0, problems: [] };
  const scanned = new Map<string, ScannedSession>();

  for (const project of (await subdirs(opts.home)).filter((d) => !d.startsWith('.'))) {
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

  const journal = await new JournalFile(journalPath(opts.home)).read();
  report.problems.push(...journal.problems);
  const replayed = await replayJournal(store, journal.entries, report);

  const rowsByTop = new Map<string, UsageInput[]>();
  for (const s of scanned.values()) if (!parentOf.has(s.id)) rowsByTop.set(s.id, []);
  for (const u of replayed.usage) {
    if (!rowsByTop.has(u.session_id)) rowsByTop.set(u.session_id, []);
    rowsByTop.get(u.session_id)!.push(u);
  }
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
  // Deleted last, so a deleted session's usage keeps the route it was recorded with.
  for (const id of replayed.deleted) await store.deleteSession(id);
  await store.expirePairings((opts.now ?? Date.now)());
  return report;
}

/** Applies the journal in order; usage rows and deletions are handed back for the steps that need them. */
async function replayJournal(store: GatewayStore, entries: JournalEntry[], report: ReindexReport): Promise<{ usage: UsageInput[]; deleted: string[] }> {
  const usage: UsageInput[] = [];
  const deleted = new Set<string>();
  for (const e of entries) {
    try {
      await applyEntry(store, e, usage, deleted);
      report.journalEntries++;
    } catch (err) {
      report.problems.push({ message: `journal entry ${e.t} at ${new Date(e.at).toISOString()} not applied: ${(err as Error).message}` });
    }
  }
  return { usage, deleted: [...deleted] };
}

async function applyEntry(store: GatewayStore, e: JournalEntry, usage: UsageInput[], deleted: Set<string>): Promise<void> {
  switch (e.t) {
    case 'session': {
      const { t: _t, at: _at, ...s } = e;
      deleted.delete(s.session_id);
      return store.restoreSession(s);
    }
    case 'session_patch': {
      const { t: _t, at: _at, session_id, ...patch } = e;
      await store.updateSession(session_id, patch);
      return;
    }
    case 'session_deleted':
      deleted.add(e.session_id);
      return;
    case 'bind':
      return store.bind(e.binding_key, e.session_id);
    case 'unbind':
      await store.unbind(e.binding_key);
      return;
    case 'task':
      await store.recordTaskRun({ task_id: e.task_id, session_id: e.session_id, requester: e.requester, started_at: e.at });
      return;
    case 'usage':
      usage.push(e.row as UsageInput);
      return;
    case 'pairing':
      return store.restorePairing(e.row);
    case 'allow':
      await store.allowUser(e.platform, e.user_id, e.added_by, e.at, e.kind);
      return;
    case 'disallow':
      await store.disallowUser(e.platform, e.user_id, e.kind);
      return;
    case 'admin_token':
      await store.addAdminTokenHash(e.hash, e.at);
      return;
    case 'admin_token_revoked':
      await store.revokeAdminTokenHash(e.hash);
      return;
    case 'schedule_grant': {
      const { t: _t, at, ...g } = e;
      return store.setScheduleGrant({ ...g, granted_at: at });
    }
  }
}
