/**
 * The admin API's JSON shapes as the pages read them (the server's own types live in src/gateway, which
 * front-end code does not import: the boundary test keeps the two apart).
 */
export interface AdapterStatus { name: string; state: string; detail?: string; last_inbound_at?: number }
export interface RunningTask { task_id: string; session_id: string; platform: string; route: string; requester: string; started_at: number; queued: number }
export interface RateBudget { key: string; tokens: number; capacity: number; paused_until: number | null }
export interface Delivery {
  id: number; platform: string; chat: string; platform_message_id: string | null; session_id: string | null; task_id: string | null;
  purpose: string; state: string; attempts: number; last_error: string | null; shown: string | null; created_at: number; updated_at: number;
}
export interface Overview {
  accepting: boolean;
  adapters: AdapterStatus[];
  tasks: RunningTask[];
  rate_budgets: RateBudget[];
  platform_problems: { session_id: string; platform: string | null; title: string | null; problem: string; at: number }[];
  dead_letters: Delivery[];
  /** Null when the gateway reports no instance; peers empty when it runs alone. */
  instance: InstanceInfo | null;
}
export interface InstanceInfo { id: string; owns: number; peers: { id: string; last_seen: number }[] }
export interface SessionRow {
  session_id: string; project_id: string; agent_id: string; parent_session_id: string | null; route: string | null; platform: string | null;
  binding_key: string | null; title: string | null; status: string; approval_mode: string; platform_problem: string | null;
  created_at: number; last_active_at: number; total: number; output: number;
  /** The gateway instance running the conversation now, on a shared PostgreSQL index; null when none holds it. */
  owner_instance: string | null;
}
export interface Approval {
  id: string; session_id: string; origin_session_id: string | null; tool_call_id: string; tool_name: string; requester: string | null;
  state: string; decided_by: string | null; decided_at: number | null; created_at: number; expires_at: number; task_id: string | null;
}
export interface OmniMessage { timestamp: string; type: 'session_meta' | 'model_msg' | 'event_msg'; payload: any; origin?: string[] }
export interface UsageGroup { key: string; requests: number; failures: number; cache_read: number; cache_write: number; output: number; total: number; cost: number | null }
export interface UsageReport { group: string; groups: UsageGroup[]; total: UsageGroup }
export interface Pairing { code: string; platform: string; kind: string; user_id: string; user_name: string | null; state: string; created_at: number; expires_at: number }
export interface Allowed { platform: string; kind: string; user_id: string; added_by: string | null; created_at: number }
export interface WebMessage { id: string; author: 'bot' | 'user'; text: string; buttons: { label: string; payload: string; style?: string }[]; final: boolean; edits: number; createdAt: number }
export type ApprovalMode = 'allow-all' | 'deny-all' | 'read-only' | 'always-ask';
export interface ScheduleRun {
  id: number; schedule_name: string; project_id: string; agent_id: string; slot: number; kind: 'slot' | 'manual';
  status: 'queued' | 'running' | 'completed' | 'failed' | 'missed'; session_id: string | null; started_at: number | null;
  ended_at: number | null; duration_ms: number | null; error: string | null; created_at: number;
}
export interface Schedule {
  id: string; project: string; agent: string; name: string; file: string; valid: boolean;
  errors: { path: string; expected: string; found: string }[];
  /** This and every field below are null for an invalid file (running/queued are false). */
  enabled: boolean | null; prompt: string | null;
  schedule: { kind: 'cron'; cron: string; timezone: string } | { kind: 'period'; period: string } | { kind: 'once' } | null;
  /** ISO 8601. */
  start_at: string | null; end_at: string | null; next_fire_at: string | null;
  deliver_to: string | null; delivers_to: string | null; session_id: string | null; delivery_problem: string | null;
  approval: {
    requested: ApprovalMode; ceiling: ApprovalMode; ceiling_from: 'operator_grant' | 'route_schedule_approval_mode' | 'bound_session' | 'route_approval_mode';
    effective: ApprovalMode; grant?: 'active' | 'stale';
  } | null;
  max_duration_ms: number | null; running: boolean; queued: boolean; last_run: ScheduleRun | null;
}
export interface DeliveryEvent { id: number; task_id: string; delivery_id: number | null; part: number | null; kind: string; detail: string | null; at: number }
export interface TaskTimeline { task_id: string; session_id: string | null; deliveries: Delivery[]; events: DeliveryEvent[] }
