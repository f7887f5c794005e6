/**
 * The live reply as a pure fold of one Task's OmniMessage stream (gateway.md §4, engine.md §9, §12):
 * `foldLiveView(view, input)` returns a new view and never mutates. It tracks the answer (main-session
 * assistant text; partials replaced by the complete message; attempts the engine retries dropped; the
 * compaction summary and the max-turns notice kept out), one entry per tool call with its outcome
 * (outputs attached by tool_call_id, never by arrival order), subagent streams folded recursively and bound
 * to their run_subagent call, and the facts the status line needs. Thinking is tracked only as activity.
 */
import type { OmniMessage, StopReason, TokenCounts } from '../../core/omnimessage/types';

export type ToolState =
  | 'preparing' // arguments still streaming
  | 'called' // complete, decision pending
  | 'running' // allowed, output pending
  | 'completed'
  | 'failed'
  | 'denied'
  | 'forbidden'
  | 'aborted' // output ended aborted (interrupted)
  | 'interrupted'; // the call itself was cut off: never executed

export interface ToolEntry {
  id: string;
  name: string;
  args: string;
  description?: string;
  state: ToolState;
  /** Short outcome note (exit code, timeout, first line of an error). */
  note?: string;
  awaitingApproval: boolean;
}

export interface AnswerSegment {
  text: string;
  /** Request (turn attempt) it belongs to. */
  request: number;
  /** Still streaming (no complete message yet). */
  open: boolean;
}

export interface SubagentEntry {
  id: string;
  /** run_subagent tool_call_id it renders under; undefined when none matched. */
  boundTo?: string;
  view: LiveView;
}

export type Activity = 'idle' | 'thinking' | 'text' | 'tool';

export interface LiveView {
  startedAt?: number;
  endedAt?: number;
  finished: boolean;
  segments: readonly AnswerSegment[];
  tools: readonly ToolEntry[];
  /** Outputs whose call has not been seen yet, by tool_call_id. */
  orphanOutputs: Readonly<Record<string, { state: ToolState; note?: string }>>;
  subagents: readonly SubagentEntry[];
  request: number;
  activity: Activity;
  retry?: { inMs: number; attempt: number; error?: string };
  compacting: boolean;
  abort?: { reason: string | null };
  auth?: { error?: string };
  maxTurns?: number;
  usage: TokenCounts;
  /** Approvals the host is currently asking about (tool_call_ids, any depth). */
  pendingApprovals: readonly string[];
}

export type HostEvent =
  | { kind: 'task_started'; at: number }
  | { kind: 'task_finished'; at: number }
  | { kind: 'approval_pending'; toolCallId: string; origin?: string[] }
  | { kind: 'approval_resolved'; toolCallId: string; origin?: string[] };

export type LiveInput = OmniMessage | HostEvent;

export const emptyLiveView = (): LiveView => ({
  finished: false,
  segments: [],
  tools: [],
  orphanOutputs: {},
  subagents: [],
  request: 0,
  activity: 'idle',
  compacting: false,
  usage: { cache_read: 0, cache_write: 0, output: 0, total: 0 },
  pendingApprovals: [],
});

const MAX_TURNS = /^\[reached max turns \((\d+)\); stopping\]$/;

const isHost = (i: LiveInput): i is HostEvent => 'kind' in i;

function replaceTool(v: LiveView, id: string, f: (t: ToolEntry) => ToolEntry): LiveView {
  const idx = v.tools.findIndex((t) => t.id === id);
  if (idx === -1) return v;
  const tools = v.tools.slice();
  tools[idx] = f(tools[idx]);
  return { ...v, tools };
}

function describe(args: string): string | undefined {
  try {
    const o: unknown = JSON.parse(args);
    const d = o && typeof o === 'object' ? (o as Record<string, unknown>).description : undefined;
    return typeof d === 'string' && d.trim() ? d.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Outcome of a complete tool output: exit codes, timeouts and signals are what users need. */
function outcome(output: string, stop: StopReason | undefined): { state: ToolState; note?: string } {
  const exit = /\[exit code: (-?\d+)\]/.exec(output);
  const timeout = /\[tool timeout: exceeded (\d+)ms\]/.exec(output);
  const signal = /\[terminated by signal (\w+)\]/.exec(output);
  const note = timeout ? 'timed out' : signal ? `killed by ${signal[1]}` : exit ? `exit code ${exit[1]}` : undefined;
  switch (stop ?? 'completed') {
    case 'completed':
      return { state: 'completed' };
    case 'aborted':
      return { state: 'aborted', note: /denied by policy/.test(output) ? 'forbidden by policy' : /denied by user/.test(output) ? 'denied' : undefined };
    default: {
      const first = output.split('\n').find((l) => l.trim() && !/^\[(exit code|output truncated|output archived)/.test(l))?.trim();
      return { state: 'failed', note: note ?? (first ? first.slice(0, 100) : undefined) };
    }
  }
}

function setOutput(v: LiveView, id: string, out: { state: ToolState; note?: string }): LiveView {
  if (!v.tools.some((t) => t.id === id)) return { ...v, orphanOutputs: { ...v.orphanOutputs, [id]: out } };
  return replaceTool(v, id, (t) => {
    // a denial already explains the aborted output
    if ((t.state === 'denied' || t.state === 'forbidden') && out.state === 'aborted') return t;
    return { ...t, state: out.state, ...(out.note ? { note: out.note } : {}), awaitingApproval: false };
  });
}

function addUsage(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { cache_read: a.cache_read + b.cache_read, cache_write: a.cache_write + b.cache_write, output: a.output + b.output, total: a.total + b.total };
}

/** The run_subagent call a new child stream belongs to: the latest allowed, unfinished, unbound one. */
function bindSubagent(v: LiveView): string | undefined {
  const bound = new Set(v.subagents.map((s) => s.boundTo));
  for (let i = v.tools.length - 1; i >= 0; i--) {
    const t = v.tools[i];
    if (t.name === 'run_subagent' && (t.state === 'running' || t.state === 'called') && !bound.has(t.id)) return t.id;
  }
  for (let i = v.tools.length - 1; i >= 0; i--) {
    const t = v.tools[i];
    if (t.name === 'run_subagent' && (t.state === 'running' || t.state === 'called')) return t.id;
  }
  return undefined;
}

function foldChild(v: LiveView, msg: OmniMessage): LiveView {
  const [child, ...rest] = msg.origin!;
  const inner: OmniMessage = rest.length ? { ...msg, origin: rest } : (({ origin: _o, ...m }) => m as OmniMessage)(msg);
  const idx = v.subagents.findIndex((s) => s.id === child);
  const subagents = v.subagents.slice();
  if (idx === -1) subagents.push({ id: child, boundTo: bindSubagent(v), view: foldLiveView(emptyLiveView(), inner) });
  else subagents[idx] = { ...subagents[idx], view: foldLiveView(subagents[idx].view, inner) };
  let next: LiveView = { ...v, subagents };
  // child usage counts toward the Task
  if (msg.type === 'event_msg' && msg.payload.type === 'token_usage') next = { ...next, usage: addUsage(next.usage, msg.payload.request) };
  return next;
}

function withTime(v: LiveView, msg: OmniMessage): LiveView {
  if (v.startedAt !== undefined) return v;
  const t = Date.parse(msg.timestamp);
  return Number.isFinite(t) ? { ...v, startedAt: t } : v;
}

function foldHost(v: LiveView, e: HostEvent): LiveView {
  switch (e.kind) {
    case 'task_started':
      return { ...v, startedAt: e.at };
    case 'task_finished':
      return { ...v, finished: true, endedAt: e.at, segments: v.segments.map((s) => (s.open ? { ...s, open: false } : s)) };
    case 'approval_pending':
    case 'approval_resolved': {
      const pending = e.kind === 'approval_pending' ? [...new Set([...v.pendingApprovals, e.toolCallId])] : v.pendingApprovals.filter((x) => x !== e.toolCallId);
      let next: LiveView = { ...v, pendingApprovals: pending };
      const route = (view: LiveView, origin: string[] | undefined): LiveView => {
        if (!origin?.length) return replaceTool(view, e.toolCallId, (t) => ({ ...t, awaitingApproval: e.kind === 'approval_pending' }));
        const [c, ...rest] = origin;
        return { ...view, subagents: view.subagents.map((s) => (s.id === c ? { ...s, view: route(s.view, rest) } : s)) };
      };
      next = route(next, e.origin);
      return next;
    }
  }
}

export function foldLiveView(view: LiveView, input: LiveInput): LiveView {
  if (isHost(input)) return foldHost(view, input);
  const msg = input;
  let v = withTime(view, msg);
  if (msg.origin?.length) return foldChild(v, msg);
  if (msg.type === 'session_meta') return v;
  const p = msg.payload;
  switch (p.type) {
    case 'request_begin':
      return { ...v, request: v.request + 1, retry: undefined, activity: 'thinking' };
    case 'request_end': {
      if (p.status === 'auth') v = { ...v, auth: { error: p.error_message } };
      if (p.status !== 'completed' && p.retry_in_ms !== undefined) {
        // the engine resends this turn: what it streamed is not the answer
        return { ...v, segments: v.segments.filter((s) => s.request !== v.request), retry: { inMs: p.retry_in_ms, attempt: (p.attempt ?? 1) + 1, error: p.error_message } };
      }
      return v;
    }
    case 'partial_thinking':
    case 'thinking':
    case 'inline_thinking':
      return { ...v, activity: 'thinking' };
    case 'partial_text': {
      if (v.compacting) return v;
      const segs = v.segments.slice();
      const last = segs[segs.length - 1];
      if (p.event_type === 'start' || !last || !last.open) {
        if (p.event_type === 'start' || p.text !== '') segs.push({ text: p.text, request: v.request, open: true });
      } else {
        segs[segs.length - 1] = { ...last, text: last.text + p.text };
      }
      return { ...v, segments: segs, activity: 'text' };
    }
    case 'text': {
      if (p.role !== 'assistant' || v.compacting) return v;
      const turns = MAX_TURNS.exec(p.text.trim());
      const segs = v.segments.slice();
      const last = segs[segs.length - 1];
      const replacing = last && last.open && last.request === v.request;
      if (replacing) segs.pop();
      if (turns) return { ...v, segments: segs, maxTurns: Number(turns[1]) };
      segs.push({ text: p.text, request: v.request, open: false });
      return { ...v, segments: segs, activity: 'text' };
    }
    case 'partial_tool_call': {
      if (v.tools.some((t) => t.id === p.tool_call_id)) {
        return p.arguments ? replaceTool({ ...v, activity: 'tool' }, p.tool_call_id, (t) => ({ ...t, args: t.args + p.arguments, ...(p.name ? { name: p.name } : {}) })) : v;
      }
      return { ...v, activity: 'tool', tools: [...v.tools, { id: p.tool_call_id, name: p.name, args: p.arguments, state: 'preparing', awaitingApproval: false }] };
    }
    case 'tool_call': {
      const state: ToolState = (p.stop_reason ?? 'completed') === 'completed' ? 'called' : 'interrupted';
      const entry = (t?: ToolEntry): ToolEntry => ({
        id: p.tool_call_id,
        name: p.name || t?.name || '?',
        args: p.arguments,
        ...(describe(p.arguments) ? { description: describe(p.arguments) } : {}),
        state,
        awaitingApproval: (t?.awaitingApproval ?? false) || v.pendingApprovals.includes(p.tool_call_id),
      });
      let next: LiveView = v.tools.some((t) => t.id === p.tool_call_id) ? replaceTool(v, p.tool_call_id, entry) : { ...v, tools: [...v.tools, entry()] };
      next = { ...next, activity: 'tool' };
      const orphan = next.orphanOutputs[p.tool_call_id];
      if (orphan && state === 'called') {
        const { [p.tool_call_id]: _used, ...rest } = next.orphanOutputs;
        next = setOutput({ ...next, orphanOutputs: rest }, p.tool_call_id, orphan);
      }
      return next;
    }
    case 'approval_decision': {
      const state: ToolState = p.decision === 'allow' ? 'running' : p.decision === 'deny' ? 'denied' : 'forbidden';
      return replaceTool({ ...v, pendingApprovals: v.pendingApprovals.filter((x) => x !== p.tool_call_id) }, p.tool_call_id, (t) =>
        t.state === 'called' || t.state === 'preparing' ? { ...t, state, awaitingApproval: false } : { ...t, awaitingApproval: false },
      );
    }
    case 'partial_tool_call_output':
      return replaceTool(v, p.tool_call_id, (t) => (t.state === 'called' ? { ...t, state: 'running' } : t));
    case 'tool_call_output':
      return setOutput(v, p.tool_call_id, outcome(p.output, p.stop_reason));
    case 'token_usage':
      return { ...v, usage: addUsage(v.usage, p.request) };
    case 'abort':
      return { ...v, abort: { reason: p.reason ?? null }, segments: v.segments.map((s) => (s.open ? { ...s, open: false } : s)) };
    case 'compaction_begin':
      return { ...v, compacting: true };
    case 'compaction_end':
      return { ...v, compacting: false };
    default:
      return v;
  }
}

export function foldAll(inputs: Iterable<LiveInput>, start: LiveView = emptyLiveView()): LiveView {
  let v = start;
  for (const i of inputs) v = foldLiveView(v, i);
  return v;
}

/** The answer as one Markdown text: main-session assistant text segments, separated by blank lines. */
export function answerText(v: LiveView): string {
  return v.segments.map((s) => s.text).filter((t) => t.trim() !== '').join('\n\n');
}

/** `answerText(v).length`, or a little more when a segment is blank, without building the text. */
export function answerLength(v: LiveView): number {
  let n = 0;
  for (const s of v.segments) n += s.text.length + 2;
  return Math.max(0, n - 2);
}
