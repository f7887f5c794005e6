/**
 * Approval modes (engine.md §7) as pure decisions. The command policy is consulted first and its veto is
 * `forbidden` whatever the mode; then `allow-all` allows, `deny-all` denies, `always-ask` asks, and
 * `read-only` allows exactly the tools whose permission is `r` and asks for everything else (`rw` and
 * unknown). A call whose paths reach outside the Session's confinement is never decided by a mode alone:
 * `deny-all` denies it and every other mode asks (gateway.md §6). Asking never throws out of here: a
 * throwing or invalid answer counts as `deny`.
 */
import type { ApprovalDecision } from '../omnimessage/types';
import type { ApproveFn, ToolCallMessage, ToolPermission, ToolReach } from '../interfaces';
import type { CommandPolicyCheck } from './command-policy';

export const APPROVAL_MODES = ['allow-all', 'deny-all', 'read-only', 'always-ask'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'allow-all';

export function isApprovalMode(s: unknown): s is ApprovalMode {
  return typeof s === 'string' && (APPROVAL_MODES as readonly string[]).includes(s);
}

/** How much a mode lets tools do without asking, most first: moving down the list only ever narrows it. */
const LAXEST_FIRST: readonly ApprovalMode[] = ['allow-all', 'read-only', 'always-ask', 'deny-all'];

/** True when `next` lets tools do more without a human than `current` (a change only an approver may make). */
export function widensApproval(current: ApprovalMode, next: ApprovalMode): boolean {
  return LAXEST_FIRST.indexOf(next) < LAXEST_FIRST.indexOf(current);
}

/** The stricter of two modes (the one that lets tools do less without a human). */
export function stricterApproval(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return LAXEST_FIRST.indexOf(a) >= LAXEST_FIRST.indexOf(b) ? a : b;
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
  reach: ToolReach = 'inside',
): Promise<ApprovalDecision> {
  if (policy?.(toolCall)) return 'forbidden';
  if (reach === 'outside') return mode === 'deny-all' ? 'deny' : askSafely(ask, toolCall);
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
  /** Where a call's paths lie (e.g. `session.toolReach`); absent = everything inside. */
  reachOf?: (toolCall: ToolCallMessage) => Promise<ToolReach>;
}

/** An `ApproveFn` for a Session: policy veto, then the (current) mode. */
export function createApprover(opts: ApproverOptions): ApproveFn {
  return async (toolCall) => {
    const mode = typeof opts.mode === 'function' ? opts.mode() : opts.mode;
    const reach = opts.reachOf ? await opts.reachOf(toolCall) : 'inside';
    return decideApproval(mode, opts.permissionOf(toolCall.payload.name), toolCall, opts.ask, opts.policy, reach);
  };
}

/** Wraps any approve callback with the command-policy veto (the host is not asked for vetoed calls). */
export function withCommandPolicy(approve: ApproveFn, policy: CommandPolicyCheck): ApproveFn {
  return async (toolCall) => (policy(toolCall) ? 'forbidden' : askSafely(approve, toolCall));
}
