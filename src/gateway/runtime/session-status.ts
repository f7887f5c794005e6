/**
 * What the SessionManager shows of its conversations: the text of `/status` (session and title, agent and
 * approval mode, whether a Task runs and how many messages wait, tokens so far), the answers of `/mode`,
 * and the running Tasks as the dashboard lists them, oldest first.
 */
import { widensApproval, type ApprovalMode } from '../../core/state';
import type { SessionRow } from '../store';
import type { Conversation, Entry, RunningTask } from './conversation';
import type { RunningTaskView } from './session-manager-types';

export function runningTaskViews(entries: Entry[]): RunningTaskView[] {
  return entries
    .filter((e): e is Entry & { running: RunningTask } => e.running !== undefined)
    .map((e) => ({
      task_id: e.running.taskId, session_id: e.session.id, platform: e.adapter.platform, route: e.route.name,
      requester: e.running.requester, started_at: e.running.startedAt, queued: e.queue.length,
    }))
    .sort((a, b) => a.started_at - b.started_at);
}

export function statusText(conv: Conversation, sid: string, row: SessionRow | undefined, entry: Entry | undefined): string {
  const lines = [
    `Session: ${sid}${row?.title ? ` — ${row.title}` : ''}`,
    `Agent: ${conv.route.project}/${conv.route.agent} · mode: ${row?.approval_mode ?? conv.route.approval_mode}`,
    `Status: ${entry?.running ? 'running' : 'idle'}${entry?.queue.length ? ` · ${entry.queue.length} queued` : ''}`,
  ];
  if (row && row.total > 0) lines.push(`Tokens so far: ${row.total}`);
  return lines.join('\n');
}

export const unknownModeText = (mode: string): string => `Unknown mode "${mode}". Use one of: allow-all, deny-all, read-only, always-ask.`;

/**
 * Why `/mode <mode>` is refused, or undefined when it may go ahead: anyone may make tool approvals stricter;
 * making them laxer than `current` takes an approver in chat (`mayWiden`), else the operator.
 */
export function modeRefusal(mode: ApprovalMode, current: ApprovalMode, approvers: readonly string[], mayWiden: boolean): string | undefined {
  if (mayWiden || !widensApproval(current, mode)) return undefined;
  return approvers.length > 0
    ? `Only this route's approvers can make tool approvals laxer (now: ${current}). You may choose a stricter mode.`
    : `Making tool approvals laxer (now: ${current}) is for the operator: the route's approval_mode in the gateway config, or the admin API. You may choose a stricter mode.`;
}
