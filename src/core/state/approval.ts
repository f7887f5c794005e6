/**
 * Approval modes (engine.md §7) as pure decisions. The command policy is consulted first and its veto is
 * `forbidden` whatever the mode; then `allow-all` allows, `deny-all` denies, `always-ask` asks, and
 * `read-only` allows exactly the tools whose permission is `r` and asks for everything else (`rw` and
 * unknown). Asking never throws out of here: a throwing or invalid answer counts as `deny`.
 */
import type { ApprovalDecision } from '../omnimessage/types';
import type { ApproveFn, ToolCallMessage, ToolPermission } from '../interfaces';
import type { CommandPolicyCheck } from './command-policy';

export const APPROVAL_MODES = ['allow-all', 'deny-all', 'read-only', 'always-ask'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'allow-all';

export function isApprovalMode(s: unknown): s is ApprovalMode {
  return typeof s === 'string' && (APPROVAL_MODES as readonly string[]).includes(s);
}

async function askSafely(ask: ApproveFn, toolCall: ToolCallMessage): Promise<ApprovalDecision> {
  try {
    const answer = await ask(toolCall);
    return answer === 'allow' || answer === 'deny' || answer === 'forbidden' ? answer : 'deny';
  } catch {
    return 'deny';
  }
}

/** One decision for one tool call. */
export async function decideApproval(
  mode: ApprovalMode,
  permission: ToolPermission | undefined,
  toolCall: ToolCallMessage,
  ask: ApproveFn,
  policy?: CommandPolicyCheck,
): Promise<ApprovalDecision> {
  if (policy?.(toolCall)) return 'forbidden';
  switch (mode) {
    case 'allow-all':
      return 'allow';
    case 'deny-all':
      return 'deny';
    case 'read-only':
      return permission === 'r' ? 'allow' : askSafely(ask, toolCall);
    case 'always-ask':
      return askSafely(ask, toolCall);
  }
}

export interface ApproverOptions {
  /** Read on every decision, so a mode change applies to the next tool call. */
  mode: ApprovalMode | (() => ApprovalMode);
  /** The Session's tool permissions (e.g. `environment.toolPermission`). */
  permissionOf: (toolName: string) => ToolPermission | undefined;
  ask: ApproveFn;
  policy?: CommandPolicyCheck;
}

/** An `ApproveFn` for a Session: policy veto, then the (current) mode. */
export function createApprover(opts: ApproverOptions): ApproveFn {
  return (toolCall) => {
    const mode = typeof opts.mode === 'function' ? opts.mode() : opts.mode;
    return decideApproval(mode, opts.permissionOf(toolCall.payload.name), toolCall, opts.ask, opts.policy);
  };
}

/** Wraps any approve callback with the command-policy veto (the host is not asked for vetoed calls). */
export function withCommandPolicy(approve: ApproveFn, policy: CommandPolicyCheck): ApproveFn {
  return async (toolCall) => (policy(toolCall) ? 'forbidden' : askSafely(approve, toolCall));
}
