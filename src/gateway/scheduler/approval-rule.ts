/**
 * The approval mode of a scheduled run. The schedule file asks for one (`approval_mode`, default `allow-all`
 * as in PenguinHarness), but the file is within the agent's reach, so it is capped: the run gets the stricter
 * of the file's mode and a ceiling only the operator can raise — a grant given through the admin API for this
 * exact definition (by hash), else the route's `schedule_approval_mode` (config), else the bound session's
 * mode (bound schedules) or the delivery route's `approval_mode`.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_APPROVAL_MODE, stricterApproval, type ApprovalMode, type ScheduleDefinition } from '../../core/state';
import type { ResolvedRoute } from '../config';

export type CeilingSource = 'operator_grant' | 'route_schedule_approval_mode' | 'bound_session' | 'route_approval_mode';

export interface ScheduledApproval {
  /** What the file asks for. */
  requested: ApprovalMode;
  ceiling: ApprovalMode;
  ceiling_from: CeilingSource;
  /** The mode the run uses: the stricter of the two. */
  effective: ApprovalMode;
  /** An operator grant exists: `active` for this definition, `stale` when the file changed since. */
  grant?: 'active' | 'stale';
}

export interface ApprovalInputs {
  requested: ApprovalMode | undefined;
  route: Pick<ResolvedRoute, 'approval_mode' | 'schedule_approval_mode'>;
  /** The current mode of the session a bound schedule runs in. */
  boundSessionMode?: ApprovalMode;
  grant?: { approval_mode: ApprovalMode; definition_hash: string };
  definitionHash: string;
}

export function scheduledApproval(i: ApprovalInputs): ScheduledApproval {
  const requested = i.requested ?? DEFAULT_APPROVAL_MODE;
  const grantActive = i.grant !== undefined && i.grant.definition_hash === i.definitionHash;
  let ceiling: ApprovalMode;
  let from: CeilingSource;
  if (grantActive) [ceiling, from] = [i.grant!.approval_mode, 'operator_grant'];
  else if (i.route.schedule_approval_mode) [ceiling, from] = [i.route.schedule_approval_mode, 'route_schedule_approval_mode'];
  else if (i.boundSessionMode) [ceiling, from] = [i.boundSessionMode, 'bound_session'];
  else [ceiling, from] = [i.route.approval_mode, 'route_approval_mode'];
  return {
    requested,
    ceiling,
    ceiling_from: from,
    effective: stricterApproval(requested, ceiling),
    ...(i.grant ? { grant: grantActive ? ('active' as const) : ('stale' as const) } : {}),
  };
}

/** What a grant is bound to: every key of the definition that decides what runs, where and how (not `enabled`). */
export function definitionHash(def: ScheduleDefinition): string {
  const material = {
    prompt: def.prompt,
    start_at: def.startAt.toISOString(),
    period: def.period ?? null,
    cron: def.cron ?? null,
    timezone: def.timezone ?? null,
    end_at: def.endAt?.toISOString() ?? null,
    session_id: def.sessionId ?? null,
    workspace: def.workspace ?? null,
    provider: def.provider ?? null,
    model_id: def.modelId ?? null,
    deliver_to: def.deliverTo ?? null,
    approval_mode: def.approvalMode ?? null,
    max_duration: def.maxDuration ?? null,
  };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}
