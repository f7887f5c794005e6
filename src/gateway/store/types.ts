/**
 * The gateway's index and coordination store, as an interface (gateway.md §12): every method is async so
 * a PostgreSQL implementation can stand behind it unchanged, and every method is atomic on its own, so no
 * caller needs a transaction handle. Times are epoch milliseconds; ids of people are `platform:user_id`.
 * Traces stay the truth: sessions and usage can be rebuilt from them (reindex.ts).
 */
import type { ClusterStore } from './cluster-types';
import type { DeliveryStore } from './delivery-types';
import type { ScheduleStore } from './schedule-types';
import type { MigrationReport } from './migrations/runner';
import type { StopReason, TokenCounts } from '../../core/omnimessage/types';

export type ApprovalModeValue = 'allow-all' | 'deny-all' | 'read-only' | 'always-ask';
export type SessionStatus = 'idle' | 'running' | 'compacting';

export interface SessionRow {
  session_id: string;
  project_id: string;
  agent_id: string;
  /** Set for subagent sessions: the session that started them. */
  parent_session_id: string | null;
  route: string | null;
  platform: string | null;
  binding_key: string | null;
  title: string | null;
  status: SessionStatus;
  approval_mode: ApprovalModeValue;
  /** The last problem the platform reported that the gateway cannot fix (blocked, permissions, auth); null once a reply gets through. */
  platform_problem: string | null;
  created_at: number;
  updated_at: number;
  last_active_at: number;
  /** Token totals of the session and its subagents. */
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
}

export interface NewSession {
  session_id: string;
  project_id: string;
  agent_id: string;
  parent_session_id?: string | null;
  route?: string | null;
  platform?: string | null;
  binding_key?: string | null;
  title?: string | null;
  status?: SessionStatus;
  approval_mode?: ApprovalModeValue;
  created_at?: number;
}

export type SessionPatch = Partial<Pick<SessionRow, 'route' | 'platform' | 'binding_key' | 'title' | 'status' | 'approval_mode' | 'last_active_at' | 'platform_problem'>>;

/** What a trace says about a session; the gateway's own columns (route, title, mode…) are kept on update. */
export interface TracedSession {
  session_id: string;
  project_id: string;
  agent_id: string;
  parent_session_id: string | null;
  created_at: number;
  last_active_at: number;
}

/** A gateway-created session as the journal has it. */
export interface RestoredSession {
  session_id: string;
  project_id: string;
  agent_id: string;
  route: string | null;
  platform: string | null;
  binding_key: string | null;
  title: string | null;
  approval_mode: ApprovalModeValue;
  created_at: number;
}

export interface SessionFilter {
  project_id?: string;
  agent_id?: string;
  platform?: string;
  route?: string;
  status?: SessionStatus;
  /** last_active_at >= since */
  since?: number;
  /** last_active_at < until */
  until?: number;
  /** Subagent sessions are left out unless asked for. */
  include_subagents?: boolean;
  /** Case-insensitive substring of the title, session id or binding key (whose ids name the chat and user). */
  text?: string;
  /** Only sessions whose platform reported a problem. */
  with_problem?: boolean;
  limit?: number;
  offset?: number;
}

export interface SessionStore {
  createSession(s: NewSession): Promise<SessionRow>;
  /** A conversation's new session: `createSession(s)` and `bind(s.binding_key, id)` as one write. */
  openSession(s: NewSession & { binding_key: string }): Promise<SessionRow>;
  getSession(sessionId: string): Promise<SessionRow | undefined>;
  /** Undefined when there is no such session. */
  updateSession(sessionId: string, patch: SessionPatch): Promise<SessionRow | undefined>;
  /** Newest activity first. */
  listSessions(filter?: SessionFilter): Promise<SessionRow[]>;
  /** Removes the session, its bindings and approvals (usage and deliveries stay: they are the ledger). */
  deleteSession(sessionId: string): Promise<boolean>;
  /**
   * At start-up: every session left `running`/`compacting` by a dead process goes back to idle (with `keys`,
   * only those of these conversations and their subagents: a dead peer instance's); returns their ids.
   */
  resetBusySessions(keys?: ReadonlySet<string>): Promise<string[]>;
  /** Inserts or refreshes the trace-derived columns, keeping the gateway's own. */
  upsertTracedSession(s: TracedSession): Promise<void>;
  /** Reindex: writes the gateway's own columns and creation time as the journal recorded them, creating the row if needed. */
  restoreSession(s: RestoredSession): Promise<void>;
  // ---- bindings: conversation key → current session ----
  /** The key now leads to this session, and `binding_key` of the session it led to before is cleared. */
  bind(bindingKey: string, sessionId: string): Promise<void>;
  resolveBinding(bindingKey: string): Promise<string | undefined>;
  /** The conversation starts over: the key leads nowhere and its session's `binding_key` is cleared. */
  unbind(bindingKey: string): Promise<boolean>;
  bindingsOf(sessionId: string): Promise<string[]>;
}

export type ApprovalState = 'pending' | 'allowed' | 'denied' | 'expired' | 'cancelled';
export interface MessageRef {
  platform: string;
  chat: string;
  message_id: string;
}
export interface ApprovalRow {
  /** Short id (10 base32 characters) that fits any platform's button payload. */
  id: string;
  session_id: string;
  /** The subagent session a call came from, when it is not the session itself. */
  origin_session_id: string | null;
  tool_call_id: string;
  tool_name: string;
  requester: string | null;
  card: MessageRef | null;
  state: ApprovalState;
  decided_by: string | null;
  decided_at: number | null;
  created_at: number;
  expires_at: number;
  task_id: string | null;
}
export interface NewApproval {
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  origin_session_id?: string | null;
  requester?: string | null;
  task_id?: string | null;
  expires_at: number;
  created_at?: number;
}
export type FinalApprovalState = Exclude<ApprovalState, 'pending'>;
export interface DecideResult {
  /** False when the approval was already decided (a repeated click): `row` then shows the earlier decision. */
  changed: boolean;
  row: ApprovalRow;
}

export interface ApprovalStore {
  createApproval(a: NewApproval): Promise<ApprovalRow>;
  getApproval(id: string): Promise<ApprovalRow | undefined>;
  setApprovalCard(id: string, card: MessageRef): Promise<boolean>;
  /** Moves a pending approval to a final state once; undefined when there is no such approval. */
  decideApproval(id: string, state: FinalApprovalState, decidedBy: string | null, at?: number): Promise<DecideResult | undefined>;
  /** Pending approvals whose `expires_at <= now` become `expired`; returns them (their cards need editing). */
  expireApprovals(now: number): Promise<ApprovalRow[]>;
  /** Closes pending approvals of a session (or, with no session, all of them: restart); returns them. */
  closePendingApprovals(state: FinalApprovalState, filter?: { session_id?: string; task_id?: string }, decidedBy?: string | null): Promise<ApprovalRow[]>;
  /** Newest first. */
  listApprovals(filter?: { state?: ApprovalState; session_id?: string; limit?: number; offset?: number }): Promise<ApprovalRow[]>;
}

export interface UsageInput {
  ts: number;
  project_id: string;
  agent_id: string;
  /** Top-level session. */
  session_id: string;
  /** The subagent session that made the request (last origin hop); null for the session itself. */
  origin_session_id?: string | null;
  route?: string | null;
  platform?: string | null;
  provider: string;
  model_id: string;
  counts?: TokenCounts;
  /** `completed` for a token_usage row; the request_end status for a zero-token failure row. */
  status?: StopReason;
  /** The request is in no trace (a title call): the journal keeps the row so a reindex restores it. */
  untraced?: boolean;
}
export interface UsageRow extends TokenCounts {
  id: number;
  ts: number;
  /** Local calendar date of `ts`, `YYYY-MM-DD`. */
  date: string;
  project_id: string;
  agent_id: string;
  session_id: string;
  origin_session_id: string | null;
  route: string | null;
  platform: string | null;
  provider: string;
  model_id: string;
  status: StopReason;
  /** Who asked: the requester of the session's Task the request belongs to; null when unattended or unknown. */
  user_id: string | null;
}
export interface UsageFilter {
  project_id?: string;
  agent_id?: string;
  session_id?: string;
  route?: string;
  platform?: string;
  provider?: string;
  model_id?: string;
  user_id?: string;
  /** Inclusive `YYYY-MM-DD` bounds. */
  from_date?: string;
  to_date?: string;
}
export type UsageGroupBy = 'date' | 'project' | 'agent' | 'session' | 'route' | 'platform' | 'model' | 'user';
/** Token sums of one group for one (project, provider, model): the unit pricing is looked up by. */
export interface UsageSums extends TokenCounts {
  key: string;
  project_id: string;
  provider: string;
  model_id: string;
  /** Rows with status completed. */
  requests: number;
  /** Rows with another status (zero-token failure rows). */
  failures: number;
}

export interface UsageStore {
  /** Adds a row and the counts to the session totals of `session_id` and `origin_session_id`. */
  recordUsage(u: UsageInput): Promise<UsageRow>;
  listUsage(filter?: UsageFilter & { limit?: number }): Promise<UsageRow[]>;
  /** Sums grouped by `groupBy` and by (project, provider, model); the model group's key is `provider/model_id`. */
  sumUsage(groupBy: UsageGroupBy | 'all', filter?: UsageFilter): Promise<UsageSums[]>;
  /** Replaces every usage row of these top-level sessions and recomputes the totals they and their subagents carry. */
  replaceUsage(sessionIds: readonly string[], rows: readonly UsageInput[]): Promise<void>;
}

/** One Task of a session: who asked, and when it started (usage rows take their user from it). */
export interface TaskRunRow {
  task_id: string;
  /** The top-level session. */
  session_id: string;
  /** `platform:user_id`; null for a run nobody asked for in chat (a schedule). */
  requester: string | null;
  started_at: number;
}
export interface TaskRunStore {
  /** False when the Task was already recorded. */
  recordTaskRun(r: TaskRunRow): Promise<boolean>;
  listTaskRuns(filter: { session_id: string; limit?: number }): Promise<TaskRunRow[]>;
}

export type { DeliveryEventKind, DeliveryEventRow, DeliveryPurpose, DeliveryRow, DeliveryState, DeliveryStore, NewDelivery, NewDeliveryEvent } from './delivery-types';

export interface InboundStore {
  /** True the first time (platform, eventId) is seen; false for a redelivery. */
  recordInbound(platform: string, eventId: string, at?: number): Promise<boolean>;
  /** Forgets events received before `before`; returns how many. */
  pruneInbound(before: number): Promise<number>;
}

export type { ScheduleGrant, ScheduleRef, ScheduleRunKind, ScheduleRunRow, ScheduleRunStatus, ScheduleStore } from './schedule-types';

export type PairingState = 'pending' | 'approved' | 'denied' | 'expired';
/** Whom an access decision is about: a platform user, or a group (Telegram chat, Discord guild, Slack workspace) and everyone in it. */
export type AccessKind = 'user' | 'group';
export interface PairingRow {
  code: string;
  platform: string;
  kind: AccessKind;
  /** The user id, or the group's id for `kind: 'group'`. */
  user_id: string;
  user_name: string | null;
  chat: string | null;
  state: PairingState;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  /** When the subject was told of the decision; null while an approval or denial is still to be told. */
  notified_at: number | null;
}
export interface NewPairing {
  platform: string;
  /** Default `user`. */
  kind?: AccessKind;
  user_id: string;
  user_name?: string | null;
  chat?: string | null;
  expires_at: number;
  created_at?: number;
}
export type PairingDecision =
  | { ok: true; row: PairingRow }
  | { ok: false; reason: 'not_found' | 'expired' | 'already_decided'; row?: PairingRow };
export interface AllowlistRow {
  platform: string;
  kind: AccessKind;
  user_id: string;
  added_by: string | null;
  created_at: number;
}
export interface AccessStore {
  /** A pending, unexpired request of the same subject is returned as is, `created: false` (one code per subject at a time). */
  requestPairing(p: NewPairing): Promise<{ row: PairingRow; created: boolean }>;
  getPairing(code: string): Promise<PairingRow | undefined>;
  /** Approving also adds the user to the allowlist, atomically. Codes are matched case-insensitively. */
  decidePairing(code: string, decision: 'approved' | 'denied', decidedBy: string | null, at?: number): Promise<PairingDecision>;
  listPairings(filter?: { state?: PairingState; limit?: number }): Promise<PairingRow[]>;
  /** Reindex: the row as the journal last recorded it; a decision restored this way counts as told. */
  restorePairing(row: Omit<PairingRow, 'notified_at'>): Promise<void>;
  /** Approved or denied requests whose subject has not been told yet, oldest decision first. */
  listUnnotifiedPairings(limit?: number): Promise<PairingRow[]>;
  /** False when it was already marked (another process told them first). */
  markPairingNotified(code: string, at?: number): Promise<boolean>;
  expirePairings(now: number): Promise<number>;
  /** True when newly added. `kind` defaults to `user` here and below. */
  allowUser(platform: string, userId: string, addedBy: string | null, at?: number, kind?: AccessKind): Promise<boolean>;
  disallowUser(platform: string, userId: string, kind?: AccessKind): Promise<boolean>;
  isAllowed(platform: string, userId: string, kind?: AccessKind): Promise<boolean>;
  listAllowed(platform?: string): Promise<AllowlistRow[]>;
}

export interface AdminTokenRow {
  hash: string;
  created_at: number;
}
export interface AdminTokenStore {
  /** Stores a token's hash (see hashAdminToken); false when already stored. */
  addAdminTokenHash(hash: string, at?: number): Promise<boolean>;
  hasAdminTokenHash(hash: string): Promise<boolean>;
  listAdminTokens(): Promise<AdminTokenRow[]>;
  revokeAdminTokenHash(hash: string): Promise<boolean>;
}

export type { ClusterStore, InstanceRow, MailRow, Takeover } from './cluster-types';

export interface GatewayStore
  extends SessionStore, ApprovalStore, UsageStore, TaskRunStore, DeliveryStore, InboundStore, ScheduleStore, AccessStore, AdminTokenStore, ClusterStore {
  close(): Promise<void>;
}

/** An opened index: the store and what the CLI says about it (which database, which migrations it ran). */
export interface IndexStore extends GatewayStore {
  readonly backend: 'sqlite' | 'postgres';
  /** The file path, or the URL without its password. */
  readonly location: string;
  readonly migration: MigrationReport;
}
