/**
 * Renders a LiveView as the live reply (gateway.md §4): a live-only status line (thinking, running a
 * tool, waiting for approval, retrying; kept at the end only to say why a Task stopped early), one line per
 * tool call (✅ ❌ ⛔, with its description and a short outcome note), subagents collapsed under their
 * run_subagent call, the answer, and an optional usage footer. The parts stay separate so the writer can
 * put the status on the last message only, split the answer across messages and check delivery on it alone.
 */
import { escapeInlineMarkdown } from '../contract/approval-card';
import type { ButtonSpec } from '../contract/surface';
import { costUsd, formatCount, formatDuration, formatUsd, type Pricing } from './cost';
import { answerText, type LiveView, type ToolEntry } from './live-view';

export interface ReplySnapshot {
  /** The status line ('' once a Task finished normally): the writer shows it on the last message only. */
  status?: string;
  /** Tool lines (Markdown, no blank lines), at the top of the first message. */
  header: string;
  /** The answer Markdown, verbatim. */
  answer: string;
  /** A line under the answer of the last message (the optional usage footer). */
  footer?: string;
  /** Buttons while the Task runs (Stop). */
  buttons?: ButtonSpec[];
}

export interface LiveReplyOptions {
  pricing?: Pricing;
  /** Tool lines shown before older ones are summarised (default 8). */
  maxToolLines?: number;
  /** Encoded Stop payload; the button shows while the Task runs. */
  stopPayload?: string;
  /** Tokens, cost and duration under a finished reply (`reply.usage_footer`). */
  usageFooter?: boolean;
}

const ICON: Record<ToolEntry['state'], string> = {
  preparing: '✏️',
  called: '⏳',
  running: '⚙️',
  completed: '✅',
  failed: '❌',
  denied: '⛔',
  forbidden: '⛔',
  aborted: '⛔',
  interrupted: '⛔',
};

const STATE_NOTE: Partial<Record<ToolEntry['state'], string>> = { denied: 'denied', forbidden: 'forbidden by policy', interrupted: 'interrupted' };

/** One line of model-provided text: whitespace collapsed, markup escaped, length capped. */
function oneLine(s: string, max = 160): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const cut = [...flat].length > max ? `${[...flat].slice(0, max - 1).join('')}…` : flat;
  return escapeInlineMarkdown(cut);
}

const toolName = (t: ToolEntry) => `\`${t.name.replace(/`/g, "'")}\``;

function toolLine(t: ToolEntry): string {
  const icon = t.awaitingApproval && (t.state === 'called' || t.state === 'preparing') ? '✋' : ICON[t.state];
  const desc = t.description ? `: ${oneLine(t.description)}` : '';
  const note = t.note ?? STATE_NOTE[t.state];
  return `${icon} ${toolName(t)}${desc}${note ? ` — ${oneLine(note, 100)}` : ''}`;
}

function hasPendingApproval(v: LiveView): boolean {
  return v.pendingApprovals.length > 0 || v.tools.some((t) => t.awaitingApproval) || v.subagents.some((s) => hasPendingApproval(s.view));
}

/** The model key problem as the user should read it (auth failures stop the Task). */
export const AUTH_STATUS = '🔑 auth problem: the model key was rejected — tell the operator';

/** What is happening now, or why the Task stopped early; '' once it finished normally. */
export function statusLine(v: LiveView): string {
  if (v.auth) return AUTH_STATUS;
  if (v.abort) return `⛔ aborted${v.abort.reason ? `: ${oneLine(v.abort.reason, 200)}` : ''}`;
  if (v.maxTurns !== undefined) return `⏹️ stopped: reached max turns (${v.maxTurns})`;
  if (v.finished) return '';
  if (v.compacting) return '🗜️ compacting the context…';
  if (v.retry) return `🔁 retrying in ${Math.max(1, Math.ceil(v.retry.inMs / 1000))} s (attempt ${v.retry.attempt})`;
  if (hasPendingApproval(v)) return '✋ waiting for approval';
  const running = [...v.tools].reverse().find((t) => t.state === 'running' || t.state === 'called');
  if (running) return `⚙️ running ${toolName(running)}${running.description ? `: ${oneLine(running.description)}` : ''}`;
  if (v.activity === 'text') return '✍️ writing…';
  return '💭 thinking…';
}

const TERMINAL = new Set<ToolEntry['state']>(['completed', 'failed', 'denied', 'forbidden', 'aborted', 'interrupted']);

/** `over`: the run_subagent call has finished, so whatever the child left running is moot. */
function subagentLine(v: LiveView, label: string, over: boolean): string {
  const n = v.tools.length;
  const lastText = answerText(v).split('\n').filter((l) => l.trim()).pop();
  const running = !over && !v.finished && !v.abort && [...v.tools].reverse().find((t) => t.state === 'running' || t.state === 'called' || t.state === 'preparing');
  const doing = running ? `${ICON[running.state]} ${toolName(running)}${running.description ? `: ${oneLine(running.description, 80)}` : ''}` : lastText ? oneLine(lastText, 80) : v.abort ? 'aborted' : 'thinking…';
  return `↳ ${label}${n ? ` · ${n} tool${n === 1 ? '' : 's'}` : ''} · ${doing}`;
}

export function toolLines(v: LiveView, opts: LiveReplyOptions = {}): string[] {
  const max = Math.max(1, opts.maxToolLines ?? 8);
  const lines: string[] = [];
  const shown = v.tools.length > max ? v.tools.slice(v.tools.length - (max - 1)) : v.tools;
  if (shown.length < v.tools.length) {
    const hidden = v.tools.slice(0, v.tools.length - shown.length);
    const ok = hidden.filter((t) => t.state === 'completed').length;
    const bad = hidden.filter((t) => t.state === 'failed').length;
    const stopped = hidden.length - ok - bad;
    const tally = [ok && `${ok} ✅`, bad && `${bad} ❌`, stopped && `${stopped} other`].filter(Boolean).join(', ');
    lines.push(`… ${hidden.length} earlier tool call${hidden.length === 1 ? '' : 's'} (${tally})`);
  }
  for (const t of shown) {
    lines.push(toolLine(t));
    for (const s of v.subagents) if (s.boundTo === t.id) lines.push(subagentLine(s.view, 'subagent', TERMINAL.has(t.state)));
  }
  for (const s of v.subagents) if (!s.boundTo) lines.push(subagentLine(s.view, `subagent \`${s.id.slice(-8)}\``, v.finished || !!v.abort));
  return lines;
}

/** Tokens, cost and duration of a finished Task, e.g. `3,411 tokens · $0.0100 · 3.0 s` ('' when nothing to say). */
export function usageLine(v: LiveView, pricing?: Pricing): string {
  const parts: string[] = [];
  if (v.usage.total > 0) parts.push(`${formatCount(v.usage.total)} tokens`);
  if (pricing && v.usage.total > 0) parts.push(formatUsd(costUsd(v.usage, pricing)));
  if (v.startedAt !== undefined && v.endedAt !== undefined) parts.push(formatDuration(v.endedAt - v.startedAt));
  return parts.join(' · ');
}

export function renderLiveReply(v: LiveView, opts: LiveReplyOptions = {}): ReplySnapshot {
  const running = !v.finished && !v.abort;
  const usage = opts.usageFooter && v.finished ? usageLine(v, opts.pricing) : '';
  return {
    status: statusLine(v),
    header: toolLines(v, opts).join('\n'),
    answer: answerText(v),
    ...(usage ? { footer: `_${usage}_` } : {}),
    ...(running && opts.stopPayload ? { buttons: [{ label: 'Stop', payload: opts.stopPayload, style: 'danger' as const }] } : {}),
  };
}

/** The snapshot as one Markdown document (single-message use, tests). */
export function liveReplyMarkdown(s: ReplySnapshot): string {
  const top = [s.status, s.header].filter((x) => x).join('\n');
  return [top, s.answer, s.footer].filter((x) => x).join('\n\n');
}
