/**
 * Builders: the one place OmniMessages are constructed, so every message gets a timestamp, the right
 * envelope type and no stray `undefined` fields (which would change the JSON written to traces).
 * `setMessageClock` lets tests pin timestamps.
 */
import type * as T from './types';

let clock: () => Date = () => new Date();
/** Replace the timestamp source (tests); pass nothing to restore the real clock. */
export function setMessageClock(fn?: () => Date): void {
  clock = fn ?? (() => new Date());
}
// A streamed reply builds many messages in the same millisecond: format each millisecond once.
let lastMs = NaN;
let lastIso = '';
export function nowIso(): string {
  const now = clock();
  const ms = now.getTime();
  if (ms !== lastMs) {
    lastIso = now.toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * Drop keys whose value is undefined so JSON round-trips exactly. The payload is copied without them rather
 * than `delete`d from: deleting a key other than the last turns a V8 object into a hash table, several times
 * the size of the plain object and slower to read, and sessions keep every message they hold.
 */
function clean<P extends object>(p: P): P {
  const keys = Object.keys(p) as (keyof P)[];
  if (!keys.some((k) => p[k] === undefined)) return p;
  const out = {} as P;
  for (const k of keys) if (p[k] !== undefined) out[k] = p[k];
  return out;
}

export function modelMsg<P extends T.ModelPayload>(payload: P): T.ModelMessage<P> {
  return { timestamp: nowIso(), type: 'model_msg', payload: clean(payload) };
}
export function eventMsg<P extends T.EventPayload>(payload: P): T.EventMessage<P> {
  return { timestamp: nowIso(), type: 'event_msg', payload: clean(payload) };
}
export function sessionMeta(payload: T.SessionMetaPayload): T.SessionMetaMessage {
  return { timestamp: nowIso(), type: 'session_meta', payload: clean({ ...payload }) };
}

type Opt<P, K extends keyof P> = Partial<Pick<P, K>>;

// ---- complete model messages ----
export function text(role: T.Role, text: string, o: Opt<T.TextPayload, 'sender' | 'stop_reason' | 'fidelity'> = {}) {
  return modelMsg<T.TextPayload>({ type: 'text', role, text, sender: o.sender, stop_reason: o.stop_reason, fidelity: o.fidelity });
}
export const userText = (t: string, sender?: T.Sender) => text('user', t, { sender });
export const assistantText = (t: string, o: Opt<T.TextPayload, 'stop_reason' | 'fidelity'> = {}) => text('assistant', t, o);

export function thinking(t: string, o: Opt<T.ThinkingPayload, 'stop_reason' | 'fidelity'> = {}) {
  return modelMsg<T.ThinkingPayload>({ type: 'thinking', role: 'assistant', thinking: t, stop_reason: o.stop_reason, fidelity: o.fidelity });
}
export function inlineThinking(data: string, mime_type: string, o: Opt<T.InlineThinkingPayload, 'stop_reason' | 'fidelity'> = {}) {
  return modelMsg<T.InlineThinkingPayload>({ type: 'inline_thinking', role: 'assistant', data, mime_type, ...o });
}
export function toolCall(p: Omit<T.ToolCallPayload, 'type' | 'role'>) {
  return modelMsg<T.ToolCallPayload>({ type: 'tool_call', role: 'assistant', name: p.name, arguments: p.arguments, tool_call_id: p.tool_call_id, stop_reason: p.stop_reason, fidelity: p.fidelity });
}
export function toolCallOutput(p: Omit<T.ToolCallOutputPayload, 'type' | 'role'>) {
  const images = p.images && p.images.length > 0 ? [...p.images] : undefined;
  return modelMsg<T.ToolCallOutputPayload>({ type: 'tool_call_output', role: 'user', output: p.output === '' ? '[no output]' : p.output, images, tool_call_id: p.tool_call_id, stop_reason: p.stop_reason });
}
export function imageUrl(url: string) {
  return modelMsg<T.ImageUrlPayload>({ type: 'image_url', role: 'user', image_url: url });
}
export function inlineData(role: T.Role, data: string, mime_type: string, o: Opt<T.InlineDataPayload, 'stop_reason' | 'fidelity'> = {}) {
  return modelMsg<T.InlineDataPayload>({ type: 'inline_data', role, data, mime_type, ...o });
}

// ---- partials ----
export function partialText(event_type: T.StreamEventType, t = '', stop_reason?: T.StopReason) {
  return modelMsg<T.PartialTextPayload>({ type: 'partial_text', role: 'assistant', event_type, text: t, stop_reason });
}
export function partialThinking(event_type: T.StreamEventType, t = '', stop_reason?: T.StopReason) {
  return modelMsg<T.PartialThinkingPayload>({ type: 'partial_thinking', role: 'assistant', event_type, thinking: t, stop_reason });
}
export function partialToolCall(event_type: T.StreamEventType, tool_call_id: string, name = '', args = '', stop_reason?: T.StopReason) {
  return modelMsg<T.PartialToolCallPayload>({ type: 'partial_tool_call', role: 'assistant', event_type, name, arguments: args, tool_call_id, stop_reason });
}
export function partialToolCallOutput(event_type: T.StreamEventType, tool_call_id: string, output = '', o: { images?: string[]; stop_reason?: T.StopReason } = {}) {
  return modelMsg<T.PartialToolCallOutputPayload>({ type: 'partial_tool_call_output', role: 'user', event_type, output, images: o.images, tool_call_id, stop_reason: o.stop_reason });
}

// ---- events ----
export const requestBegin = () => eventMsg<T.RequestBeginPayload>({ type: 'request_begin' });
export function requestEnd(status: T.StopReason, d: T.RetryDetail = {}) {
  return eventMsg<T.RequestEndPayload>({ type: 'request_end', status, error_message: d.error_message, attempt: d.attempt, retry_in_ms: d.retry_in_ms });
}
export function tokenUsage(session: T.TokenCounts, request: T.TokenCounts) {
  return eventMsg<T.TokenUsagePayload>({ type: 'token_usage', session: { ...session }, request: { ...request } });
}
export function approvalDecision(decision: T.ApprovalDecision, tool_call_id: string, policy_rule?: string) {
  return eventMsg<T.ApprovalDecisionPayload>({ type: 'approval_decision', decision, tool_call_id, policy_rule });
}
export const abort = (reason: string | null = null) => eventMsg<T.AbortPayload>({ type: 'abort', reason });
export function compactionBegin(reason: T.CompactionReason, mode: T.CompactionMode, context: number, turns: number) {
  return eventMsg<T.CompactionBeginPayload>({ type: 'compaction_begin', reason, mode, context, turns });
}
export function compactionEnd(reason: T.CompactionReason, mode: T.CompactionMode, status: T.StopReason, d: Omit<T.RetryDetail, 'retry_in_ms'> = {}) {
  return eventMsg<T.CompactionEndPayload>({ type: 'compaction_end', reason, mode, status, attempt: d.attempt, error_message: d.error_message });
}
export const subagent = (session_id: string) => eventMsg<T.SubagentPayload>({ type: 'subagent', session_id });
export const toolListReady = (tools: T.ToolDefinition[]) => eventMsg<T.ToolListReadyPayload>({ type: 'tool_list_ready', tools });
export const mcpConnectBegin = (servers: string[]) => eventMsg<T.McpConnectBeginPayload>({ type: 'mcp_connect_begin', servers });
export const mcpConnectEnd = (status: T.McpConnectStatus, results: T.McpServerConnectResult[]) =>
  eventMsg<T.McpConnectEndPayload>({ type: 'mcp_connect_end', status, results });
export const goalFinished = (outcome: T.GoalOutcome, rounds: number, tokens_used: number) =>
  eventMsg<T.GoalFinishedPayload>({ type: 'goal_finished', outcome, rounds, tokens_used });

/** A copy of `msg` forwarded one hop up: `childSessionId` is prepended to `origin`. */
export function withOrigin<M extends T.OmniMessage>(msg: M, childSessionId: string): M {
  return { ...msg, origin: [childSessionId, ...(msg.origin ?? [])] };
}
