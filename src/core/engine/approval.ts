/**
 * Approval as the turn loop uses it (engine.md §2.1, §2.3.3, §7): the command policy vetoes first
 * (`forbidden`, host not asked, rule name recorded); no host callback means deny; a throwing or nonsense
 * answer means deny. The synthetic outputs of refused calls carry the exact texts hosts and models see.
 */
import type { ApproveFn, ToolCallMessage } from '../interfaces';
import type { ApprovalDecision } from '../omnimessage/types';

/** The Session's command policy: the matching rule for a call that must never run, else undefined. */
export type CommandPolicy = (toolCall: ToolCallMessage) => { rule: string } | undefined;

export interface ApprovalVerdict {
  decision: ApprovalDecision;
  policyRule?: string;
}

export const DENIED_BY_USER = 'Tool call denied by user.';
export const DENIED_BY_POLICY = 'Tool call denied by policy.';

const DECISIONS: readonly ApprovalDecision[] = ['allow', 'deny', 'forbidden'];

/** One verdict per call; never throws. */
export async function decide(toolCall: ToolCallMessage, approve?: ApproveFn, policy?: CommandPolicy): Promise<ApprovalVerdict> {
  if (policy) {
    let hit: { rule: string } | undefined;
    try {
      hit = policy(toolCall);
    } catch {
      // A policy that cannot decide must not let a call through unchecked.
      return { decision: 'forbidden', policyRule: 'command_policy_error' };
    }
    if (hit) return { decision: 'forbidden', policyRule: hit.rule };
  }
  if (!approve) return { decision: 'deny' };
  try {
    const d = await approve(toolCall);
    return { decision: DECISIONS.includes(d) ? d : 'deny' };
  } catch {
    return { decision: 'deny' };
  }
}

/** The host callback with the policy in front of it: what subagents inherit (engine.md §7). */
export function withPolicy(approve: ApproveFn | undefined, policy: CommandPolicy | undefined): ApproveFn | undefined {
  if (!policy) return approve;
  return async (toolCall) => (await decide(toolCall, approve, policy)).decision;
}

export function refusalText(decision: ApprovalDecision): string {
  return decision === 'forbidden' ? DENIED_BY_POLICY : DENIED_BY_USER;
}
