/**
 * The gateway journal's line format: one JSON object per line, `t` naming what changed and `at` when
 * (epoch ms). It records exactly the index facts no trace holds (which session a conversation is on, a
 * session's route, platform, title and approval mode, who asked for each Task, title-call usage, pairing and
 * allowlist decisions, admin token hashes, approval modes granted to schedules), so a reindex can restore
 * them. Lines are validated when read; unknown `t` is a problem.
 */
import * as z from 'zod';
import { STOP_REASONS } from '../../../core/omnimessage/types';

/** The line schema, built for each read of the journal (a reindex) and then let go, not held for the process's life. */
export function buildJournalEntrySchema() {
  const id = z.string().min(1);
  const at = z.number().int().nonnegative();
  const mode = z.enum(['allow-all', 'deny-all', 'read-only', 'always-ask']);
  const kind = z.enum(['user', 'group']);
  const counts = z.object({ cache_read: z.number(), cache_write: z.number(), output: z.number(), total: z.number() });

  const session = z.object({
    t: z.literal('session'),
    at,
    session_id: id,
    project_id: id,
    agent_id: id,
    route: z.string().nullable(),
    platform: z.string().nullable(),
    binding_key: z.string().nullable(),
    title: z.string().nullable(),
    approval_mode: mode,
    created_at: at,
  });

  const sessionPatch = z.object({
    t: z.literal('session_patch'),
    at,
    session_id: id,
    route: z.string().nullable().optional(),
    platform: z.string().nullable().optional(),
    binding_key: z.string().nullable().optional(),
    title: z.string().nullable().optional(),
    approval_mode: mode.optional(),
  });

  const usage = z.object({
    t: z.literal('usage'),
    at,
    row: z.object({
      ts: at,
      project_id: id,
      agent_id: id,
      session_id: id,
      origin_session_id: z.string().nullable().optional(),
      route: z.string().nullable().optional(),
      platform: z.string().nullable().optional(),
      provider: z.string(),
      model_id: z.string(),
      counts: counts.optional(),
      status: z.enum(STOP_REASONS as [string, ...string[]]).optional(),
    }),
  });

  const pairing = z.object({
    t: z.literal('pairing'),
    at,
    row: z.object({
      code: id,
      platform: id,
      kind,
      user_id: id,
      user_name: z.string().nullable(),
      chat: z.string().nullable(),
      state: z.enum(['pending', 'approved', 'denied', 'expired']),
      created_at: at,
      expires_at: at,
      decided_at: at.nullable(),
    }),
  });

  const subject = { platform: id, kind, user_id: id };

  return z.discriminatedUnion('t', [
    session,
    sessionPatch,
    z.object({ t: z.literal('session_deleted'), at, session_id: id }),
    z.object({ t: z.literal('bind'), at, binding_key: id, session_id: id }),
    z.object({ t: z.literal('task'), at, task_id: id, session_id: id, requester: z.string().nullable() }),
    z.object({ t: z.literal('unbind'), at, binding_key: id }),
    usage,
    pairing,
    z.object({ t: z.literal('allow'), at, ...subject, added_by: z.string().nullable() }),
    z.object({ t: z.literal('disallow'), at, ...subject }),
    z.object({ t: z.literal('admin_token'), at, hash: id }),
    z.object({ t: z.literal('admin_token_revoked'), at, hash: id }),
    z.object({
      t: z.literal('schedule_grant'), at, project_id: id, agent_id: id, schedule_name: id, approval_mode: mode, definition_hash: id, granted_by: z.string().nullable(),
    }),
  ]);
}

export type JournalEntry = z.infer<ReturnType<typeof buildJournalEntrySchema>>;
