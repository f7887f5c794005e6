/**
 * Runtime guards: narrowing helpers for typed code, and `parseOmniMessage` for untrusted JSON
 * (trace lines, SSE, HTTP bodies). The parser checks the envelope and each payload's required
 * fields by hand because it runs on every trace line at resume, where a schema library costs too much.
 */
import {
  COMPLETE_TYPES, EVENT_TYPES, PARTIAL_TYPES, STOP_REASONS,
  type CompleteMessage, type MessageOf, type OmniMessage, type PartialMessage, type PayloadType,
} from './types';

const completeSet = new Set<string>(COMPLETE_TYPES);
const partialSet = new Set<string>(PARTIAL_TYPES);
const eventSet = new Set<string>(EVENT_TYPES);

export function isPayload<K extends PayloadType>(msg: OmniMessage, type: K): msg is MessageOf<K> & OmniMessage {
  return msg.type !== 'session_meta' && msg.payload.type === type;
}
export const isPartial = (m: OmniMessage): m is PartialMessage => m.type === 'model_msg' && partialSet.has(m.payload.type);
export const isComplete = (m: OmniMessage): m is CompleteMessage => m.type === 'model_msg' && completeSet.has(m.payload.type);
/** Messages a trace may hold: no partials, nothing from a child session. */
export const isTraceable = (m: OmniMessage): boolean => !isPartial(m) && m.origin === undefined;

const STR = 'string';
/** Required fields per payload type, with their JS typeof (or 'array'/'object'). */
const REQUIRED: Record<string, Record<string, string>> = {
  text: { role: STR, text: STR },
  thinking: { thinking: STR },
  inline_thinking: { data: STR, mime_type: STR },
  tool_call: { name: STR, arguments: STR, tool_call_id: STR },
  tool_call_output: { output: STR, tool_call_id: STR },
  image_url: { image_url: STR },
  inline_data: { data: STR, mime_type: STR },
  partial_text: { event_type: STR, text: STR },
  partial_thinking: { event_type: STR, thinking: STR },
  partial_tool_call: { event_type: STR, tool_call_id: STR },
  partial_tool_call_output: { event_type: STR, tool_call_id: STR },
  request_begin: {},
  request_end: { status: STR },
  token_usage: { session: 'object', request: 'object' },
  approval_decision: { decision: STR, tool_call_id: STR },
  abort: {},
  compaction_begin: { reason: STR, mode: STR },
  compaction_end: { reason: STR, mode: STR, status: STR },
  subagent: { session_id: STR },
  tool_list_ready: { tools: 'array' },
  mcp_connect_begin: { servers: 'array' },
  mcp_connect_end: { status: STR, results: 'array' },
  goal_finished: { outcome: STR },
};
const ROLES = ['user', 'assistant'];
const EVENT_TYPES_OF_STREAM = ['start', 'delta', 'stop'];
/** Enum-valued fields, checked wherever they appear. */
const ENUMS: Record<string, Record<string, readonly string[]>> = {
  text: { role: ROLES },
  inline_data: { role: ROLES },
  partial_text: { event_type: EVENT_TYPES_OF_STREAM },
  partial_thinking: { event_type: EVENT_TYPES_OF_STREAM },
  partial_tool_call: { event_type: EVENT_TYPES_OF_STREAM },
  partial_tool_call_output: { event_type: EVENT_TYPES_OF_STREAM },
  request_end: { status: STOP_REASONS },
  compaction_begin: { reason: ['context', 'turns', 'manual'], mode: ['summarize', 'discard'] },
  compaction_end: { status: STOP_REASONS, reason: ['context', 'turns', 'manual'], mode: ['summarize', 'discard'] },
  approval_decision: { decision: ['allow', 'deny', 'forbidden'] },
  mcp_connect_end: { status: ['completed', 'failed', 'aborted'] },
};
const META_REQUIRED: Record<string, string> = { session_id: STR, provider: STR, model_id: STR, system_prompt: STR, agent_state: STR, workspace: STR };

function kind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v;
}
function checkFields(p: Record<string, unknown>, req: Record<string, string>): string | undefined {
  for (const [k, want] of Object.entries(req)) {
    if (kind(p[k]) !== want) return `payload.${k}: expected ${want}, found ${kind(p[k])}`;
  }
  return undefined;
}

export type ParseResult = { ok: true; message: OmniMessage } | { ok: false; error: string };

/** Validate an already-JSON-parsed value as an OmniMessage; never throws. */
export function parseOmniMessage(v: unknown): ParseResult {
  if (kind(v) !== 'object') return { ok: false, error: `expected an object, found ${kind(v)}` };
  const o = v as Record<string, unknown>;
  if (typeof o.timestamp !== 'string') return { ok: false, error: 'timestamp: expected string' };
  if (o.origin !== undefined && !(Array.isArray(o.origin) && o.origin.every((x) => typeof x === 'string')))
    return { ok: false, error: 'origin: expected string[]' };
  if (kind(o.payload) !== 'object') return { ok: false, error: `payload: expected object, found ${kind(o.payload)}` };
  const p = o.payload as Record<string, unknown>;
  let err: string | undefined;
  if (o.type === 'session_meta') {
    err = checkFields(p, META_REQUIRED);
  } else if (o.type === 'model_msg' || o.type === 'event_msg') {
    const t = p.type;
    if (typeof t !== 'string') return { ok: false, error: 'payload.type: expected string' };
    const known = o.type === 'model_msg' ? completeSet.has(t) || partialSet.has(t) : eventSet.has(t);
    if (!known) return { ok: false, error: `payload.type: unknown ${o.type} type "${t}"` };
    err = checkFields(p, REQUIRED[t]);
    for (const [k, allowed] of Object.entries(ENUMS[t] ?? {})) {
      if (!err && !allowed.includes(p[k] as string)) err = `payload.${k}: expected one of ${allowed.join('|')}, found ${JSON.stringify(p[k])}`;
    }
    if (!err && p.stop_reason !== undefined && !STOP_REASONS.includes(p.stop_reason as never))
      err = `payload.stop_reason: unknown value "${String(p.stop_reason)}"`;
  } else {
    return { ok: false, error: `type: expected session_meta|model_msg|event_msg, found ${JSON.stringify(o.type)}` };
  }
  return err ? { ok: false, error: err } : { ok: true, message: o as unknown as OmniMessage };
}
