/**
 * OmniMessage protocol types (engine.md §1). Field names and enum values are the wire format shared
 * with PenguinHarness traces: change nothing here without changing the spec.
 * A message is an envelope `{timestamp, type, payload, origin?}`; `payload.type` discriminates every
 * model/event payload, so `isPayload(msg, "tool_call")` narrows a message without casts.
 */

export type OmniMessageType = 'session_meta' | 'model_msg' | 'event_msg';
export type Role = 'user' | 'assistant';
export type StopReason = 'completed' | 'failed' | 'aborted' | 'timeout' | 'malformed' | 'auth';
export const STOP_REASONS: readonly StopReason[] = ['completed', 'failed', 'aborted', 'timeout', 'malformed', 'auth'];
export type StreamEventType = 'start' | 'delta' | 'stop';
/** Who wrote a user text when it was not the human: a parent agent, the harness, or the server (schedules). */
export type Sender = 'user' | 'parent_agent' | 'harness' | 'server';
/** Opaque provider data persisted and replayed byte-for-byte. */
export type Fidelity = Record<string, unknown>;
export type ApprovalDecision = 'allow' | 'deny' | 'forbidden';

export interface TokenCounts {
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

// ---- session_meta (no `type` inside the payload: the envelope says it) ----
export interface SessionMetaPayload {
  session_id: string;
  provider: string;
  model_id: string;
  model_context_window: number | string;
  system_prompt: string;
  agent_state: string;
  workspace: string;
  source?: 'subagent' | 'schedule';
}

// ---- complete model payloads ----
export interface TextPayload {
  type: 'text';
  role: Role;
  text: string;
  sender?: Sender;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}
export interface ThinkingPayload {
  type: 'thinking';
  role: 'assistant';
  thinking: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}
export interface InlineThinkingPayload {
  type: 'inline_thinking';
  role: 'assistant';
  data: string;
  mime_type: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}
export interface ToolCallPayload {
  type: 'tool_call';
  role: 'assistant';
  name: string;
  /** JSON text, exactly as the model produced it. */
  arguments: string;
  tool_call_id: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}
export interface ToolCallOutputPayload {
  type: 'tool_call_output';
  role: 'user';
  /** Never empty: producers write `[no output]` instead. */
  output: string;
  /** data: URLs */
  images?: string[];
  tool_call_id: string;
  stop_reason?: StopReason;
}
export interface ImageUrlPayload {
  type: 'image_url';
  role: 'user';
  image_url: string;
  stop_reason?: StopReason;
}
export interface InlineDataPayload {
  type: 'inline_data';
  role: Role;
  data: string;
  mime_type: string;
  stop_reason?: StopReason;
  fidelity?: Fidelity;
}

// ---- partial model payloads ----
export interface PartialTextPayload {
  type: 'partial_text';
  role: 'assistant';
  event_type: StreamEventType;
  text: string;
  stop_reason?: StopReason;
}
export interface PartialThinkingPayload {
  type: 'partial_thinking';
  role: 'assistant';
  event_type: StreamEventType;
  thinking: string;
  stop_reason?: StopReason;
}
export interface PartialToolCallPayload {
  type: 'partial_tool_call';
  role: 'assistant';
  event_type: StreamEventType;
  name: string;
  arguments: string;
  tool_call_id: string;
  stop_reason?: StopReason;
}
export interface PartialToolCallOutputPayload {
  type: 'partial_tool_call_output';
  role: 'user';
  event_type: StreamEventType;
  output: string;
  images?: string[];
  tool_call_id: string;
  stop_reason?: StopReason;
}

// ---- event payloads ----
export interface RequestBeginPayload {
  type: 'request_begin';
}
/** Shared by request_end and compaction_end. */
export interface RetryDetail {
  error_message?: string;
  /** 1-based; absent on a clean first try. */
  attempt?: number;
  /** Present only when the engine will retry. */
  retry_in_ms?: number;
}
export interface RequestEndPayload extends RetryDetail {
  type: 'request_end';
  status: StopReason;
}
export interface TokenUsagePayload {
  type: 'token_usage';
  session: TokenCounts;
  request: TokenCounts;
}
export interface ApprovalDecisionPayload {
  type: 'approval_decision';
  decision: ApprovalDecision;
  tool_call_id: string;
  /** Name of the command-policy rule behind a `forbidden` decision (newer PenguinHarness traces carry it). */
  policy_rule?: string;
}
export interface AbortPayload {
  type: 'abort';
  reason?: string | null;
}
export type CompactionReason = 'context' | 'turns' | 'manual';
export type CompactionMode = 'summarize' | 'discard';
export interface CompactionBeginPayload {
  type: 'compaction_begin';
  reason: CompactionReason;
  mode: CompactionMode;
  context: number;
  turns: number;
}
export interface CompactionEndPayload extends RetryDetail {
  type: 'compaction_end';
  reason: CompactionReason;
  mode: CompactionMode;
  status: StopReason;
}
export interface SubagentPayload {
  type: 'subagent';
  session_id: string;
}
export interface ToolListReadyPayload {
  type: 'tool_list_ready';
  tools: ToolDefinition[];
}
export interface McpConnectBeginPayload {
  type: 'mcp_connect_begin';
  servers: string[];
}
export type McpConnectStatus = 'completed' | 'failed' | 'aborted';
export type McpTransport = 'stdio' | 'http' | 'sse';
export interface McpServerConnectResult {
  server: string;
  transport: McpTransport;
  status: McpConnectStatus;
  duration_ms: number;
  tools?: number;
  error?: string;
}
export interface McpConnectEndPayload {
  type: 'mcp_connect_end';
  status: McpConnectStatus;
  results: McpServerConnectResult[];
}
export type GoalOutcome = 'complete' | 'blocked' | 'budget_limited' | 'aborted';
export interface GoalFinishedPayload {
  type: 'goal_finished';
  outcome: GoalOutcome;
  rounds: number;
  tokens_used: number;
}

// ---- unions ----
export type CompletePayload =
  | TextPayload
  | ThinkingPayload
  | InlineThinkingPayload
  | ToolCallPayload
  | ToolCallOutputPayload
  | ImageUrlPayload
  | InlineDataPayload;
export type PartialPayload = PartialTextPayload | PartialThinkingPayload | PartialToolCallPayload | PartialToolCallOutputPayload;
export type ModelPayload = CompletePayload | PartialPayload;
export type EventPayload =
  | RequestBeginPayload
  | RequestEndPayload
  | TokenUsagePayload
  | ApprovalDecisionPayload
  | AbortPayload
  | CompactionBeginPayload
  | CompactionEndPayload
  | SubagentPayload
  | ToolListReadyPayload
  | McpConnectBeginPayload
  | McpConnectEndPayload
  | GoalFinishedPayload;
export type TypedPayload = ModelPayload | EventPayload;
export type PayloadType = TypedPayload['type'];
export type PayloadOf<T extends PayloadType> = Extract<TypedPayload, { type: T }>;

export const COMPLETE_TYPES = ['text', 'thinking', 'inline_thinking', 'tool_call', 'tool_call_output', 'image_url', 'inline_data'] as const;
export const PARTIAL_TYPES = ['partial_text', 'partial_thinking', 'partial_tool_call', 'partial_tool_call_output'] as const;
export const EVENT_TYPES = [
  'request_begin', 'request_end', 'token_usage', 'approval_decision', 'abort', 'compaction_begin',
  'compaction_end', 'subagent', 'tool_list_ready', 'mcp_connect_begin', 'mcp_connect_end', 'goal_finished',
] as const;

// ---- envelopes ----
interface Envelope {
  /** ISO-8601 UTC */
  timestamp: string;
  /** Child-session ids, outer → inner. Absent (never []) for the main session. */
  origin?: string[];
}
export interface SessionMetaMessage extends Envelope {
  type: 'session_meta';
  payload: SessionMetaPayload;
}
export interface ModelMessage<P extends ModelPayload = ModelPayload> extends Envelope {
  type: 'model_msg';
  payload: P;
}
export interface EventMessage<P extends EventPayload = EventPayload> extends Envelope {
  type: 'event_msg';
  payload: P;
}
export type OmniMessage = SessionMetaMessage | ModelMessage | EventMessage;
/** The message that carries a given payload type, e.g. `MessageOf<"tool_call">`. */
export type MessageOf<T extends PayloadType> = PayloadOf<T> extends ModelPayload
  ? ModelMessage<Extract<ModelPayload, { type: T }>>
  : EventMessage<Extract<EventPayload, { type: T }>>;
export type CompleteMessage = ModelMessage<CompletePayload>;
export type PartialMessage = ModelMessage<PartialPayload>;
