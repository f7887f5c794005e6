/**
 * What the SessionManager shows of its conversations: the text of `/status` (session and title, agent and
 * approval mode, whether a Task runs and how many messages wait, tokens so far) and the running Tasks as
 * the dashboard lists them, oldest first.
 */
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
