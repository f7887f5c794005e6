/**
 * The SessionManager's shapes: what it is built from, what it shows of running Tasks (the dashboard, the
 * admin API) and the scheduled job it runs for the scheduler with how that ended.
 */
import type { Clock } from '../../adapters/contract/clock';
import type { Pricing, RateGovernor, SecretRedactor } from '../../adapters/render';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import type { GatewayConfig } from '../config';
import type { GatewayStore } from '../store';
import type { AgentPool } from './agent-pool';
import type { ApprovalBroker } from './approval-broker';
import type { ScheduledTaskRun, TaskOutcome } from './conversation';
import type { Outbox } from './outbox';
import type { OpenHow } from './session-opener';

export interface RunningTaskView {
  task_id: string;
  session_id: string;
  platform: string;
  route: string;
  /** `platform:user_id` of who started it. */
  requester: string;
  started_at: number;
  /** Messages waiting to run after it. */
  queued: number;
}

export interface SessionManagerOptions {
  config: GatewayConfig;
  store: GatewayStore;
  pool: AgentPool;
  broker: ApprovalBroker;
  outbox: Outbox;
  governor: RateGovernor;
  clock: Clock;
  logger: Logger;
  metrics?: GatewayMetrics;
  /** Pricing of a model, for the cost on the final line. */
  pricingOf?: (provider: string, modelId: string) => Pricing | undefined;
  /** Masks secrets in every live reply. */
  redactor?: SecretRedactor;
  /** Heap in use and its budget, bytes (default: V8's, the budget from `sessions.heap_budget_mb` or 70 % of the limit). */
  memory?: () => { heapUsed: number; budget: number };
}

/** A schedule fire for the manager to run (scheduler/chat-executor.ts builds it). */
export interface ScheduledJob {
  schedule: Omit<ScheduledTaskRun, 'openToThread'>;
  /** The `[scheduled_task]` user text. */
  input: OmniMessage[];
  open: OpenHow;
  /** The Task is aborted with `maxDurationReason` after this long. */
  maxDurationMs: number;
  maxDurationReason: string;
  /** The run's session exists and its Task started. */
  onStarted(sessionId: string): Promise<void>;
}

export type ScheduledResult =
  | { ok: true; sessionId: string; outcome: TaskOutcome }
  | { ok: false; error: string; sessionId?: string; shuttingDown?: true };
