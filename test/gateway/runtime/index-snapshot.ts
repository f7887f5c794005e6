/**
 * What an operator sees of the index, for comparing a live gateway with one rebuilt from the files:
 * `/api/sessions` (subagents included; `updated_at` left out: it says when a row was last written, which a
 * rebuild rewrites), `/api/usage` in every grouping, and each given conversation's current session.
 */
import type { Harness } from './harness';

export const USAGE_GROUPS = ['day', 'model', 'route', 'session', 'project', 'platform', 'user'] as const;

export interface IndexSnapshot {
  sessions: unknown[];
  usage: Record<string, unknown>;
  bindings: Record<string, string | null>;
}

export async function indexSnapshot(h: Harness, conversations: readonly string[]): Promise<IndexSnapshot> {
  const listed = await h.api('/api/sessions?subagents=true&limit=500');
  if (listed.status !== 200) throw new Error(`GET /api/sessions: ${listed.status}`);
  const sessions = (listed.body.sessions as Record<string, unknown>[]).map(({ updated_at: _, ...row }) => row);
  const usage: Record<string, unknown> = {};
  for (const g of USAGE_GROUPS) {
    const r = await h.api(`/api/usage?group=${g}`);
    if (r.status !== 200) throw new Error(`GET /api/usage?group=${g}: ${r.status}`);
    usage[g] = { groups: r.body.groups, total: r.body.total };
  }
  const bindings: Record<string, string | null> = {};
  for (const c of conversations) bindings[c] = (await h.gateway.store.resolveBinding(`web:${c}`)) ?? null;
  return { sessions, usage, bindings };
}
