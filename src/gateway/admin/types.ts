/**
 * What the admin API needs from the rest of the process. `AdminRuntime` is the narrow surface the gateway
 * runtime implements: adapter health for /readyz, deciding an approval (which also resolves the waiting
 * tool call and edits its card), hearing about pairing decisions (to tell the user in chat), the scheduler's
 * schedules, and for the dashboard the running Tasks and rate budgets, stopping a session's Task, resending a
 * dead letter and following a session's trace live. Everything else the API serves comes from the store and
 * the trace files.
 */
import type { SecretRedactor } from '../../adapters/render';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { ApprovalMode } from '../../core/state';
import type { EditOutcome, RunNowResult, ScheduleView } from '../scheduler';
import type { DeliveryRow, GatewayStore, PairingRow, PricingLookup, ScheduleRunRow } from '../store';
import type { LoginSessions } from './login';
import type { GatewayMetrics } from './metrics';

export type AdapterState = 'connected' | 'connecting' | 'failed' | 'disabled';

export interface AdapterStatus {
  /** `telegram`, `slack`, `discord`, `web`. */
  name: string;
  /** `disabled` = not configured (no credentials or turned off); it does not hold readiness back. */
  state: AdapterState;
  /** Why it failed or is still connecting, for the operator; never a credential. */
  detail?: string;
  /** Epoch ms of the last inbound platform event. */
  last_inbound_at?: number;
}

export interface RuntimeHealth {
  /** False while starting up or shutting down: the process takes no events, so it is not ready. */
  accepting: boolean;
  adapters: AdapterStatus[];
  /** This gateway instance: its id, the conversations it owns and its live peers on the same database. */
  instance?: { id: string; owns: number; peers: { id: string; last_seen: number }[] };
}

export type DecideApprovalResult =
  | { ok: true; state: string }
  | { ok: false; code: 'not_found' | 'already_decided' | 'expired'; message: string };

export interface RunningTaskInfo {
  task_id: string;
  session_id: string;
  platform: string;
  route: string;
  requester: string;
  started_at: number;
  queued: number;
}

/** One rate-governor bucket that is not full (in use) or paused by a platform's retry_after. */
export interface RateBudgetInfo {
  key: string;
  tokens: number;
  capacity: number;
  paused_until: number | null;
}

export type ResendOutcome =
  | { ok: true; delivery: DeliveryRow }
  | { ok: false; code: 'not_found' | 'not_failed' | 'nothing_to_send' | 'no_conversation' | 'platform_not_running' | 'send_failed'; message: string };

export interface AdminRuntime {
  health(): RuntimeHealth;
  /** Decides a pending approval as `actor` (a `platform:user_id`); the runtime answers the tool call and edits its card. */
  decideApproval(id: string, decision: 'allow' | 'deny', actor: string): Promise<DecideApprovalResult>;
  /** The admin API wrote a pairing decision: tell the person now rather than at the next poll. */
  pairingDecided(row: PairingRow): Promise<void>;
  /** Running Tasks, oldest first. */
  runningTasks(): RunningTaskInfo[];
  /** Rate buckets in use or paused. */
  rateBudgets(): RateBudgetInfo[];
  /** Aborts the session's running Task as the operator. */
  stopSession(sessionId: string): Promise<'stopped' | 'not_running'>;
  resendDelivery(id: number): Promise<ResendOutcome>;
  /** Every batch the session writes to its trace from now on; returns the unsubscribe function. */
  watchSession(sessionId: string, listener: (msgs: readonly OmniMessage[]) => void): () => void;
  /** The running scheduler; absent when it did not start. */
  schedules?: ScheduleAdmin;
}

/** What the admin API asks of the scheduler; ids are `<project>:<agent>:<name>` or a unique bare name. */
export interface ScheduleAdmin {
  list(): Promise<ScheduleView[]>;
  get(idOrName: string): Promise<ScheduleView | undefined>;
  setEnabled(idOrName: string, enabled: boolean, o: { approvalMode?: ApprovalMode; actor: string }): Promise<EditOutcome>;
  runNow(idOrName: string): Promise<RunNowResult>;
  /** Newest first; undefined for an unknown schedule. */
  runs(idOrName: string, limit: number): Promise<ScheduleRunRow[] | undefined>;
}

export interface AdminDeps {
  config: GatewayConfig;
  store: GatewayStore;
  metrics: GatewayMetrics;
  runtime: AdminRuntime;
  logger: Logger;
  /** Model prices for /api/usage; without it every cost is null. */
  pricing?: PricingLookup;
  /** Defaults to Date.now; injected by tests. */
  now?: () => number;
  /** Masks known secrets in every JSON response (transcripts hold what tools printed). */
  redactor?: SecretRedactor;
  /** Log each request (default true); false when the listener in front already does. */
  logRequests?: boolean;
  /** The dashboard's logins; shared with the playground routes' guard. One is made when absent. */
  sessions?: LoginSessions;
  /** Where the built dashboard is (default dist/dashboard). */
  dashboardDir?: string;
}

/** Who the admin API records as the decider of approvals, pairings and allowlist entries. */
export const ADMIN_ACTOR = 'web:admin';
