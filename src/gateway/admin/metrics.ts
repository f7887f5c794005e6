/**
 * `GatewayMetrics`: the gateway's Prometheus metrics on a private prom-client Registry (never the global
 * one, so several gateways or tests in one process do not collide). The runtime calls the recording
 * methods; `/metrics` serves `text()`. Durations are passed in milliseconds and exported in seconds.
 * Labels take bounded values only (platform, method, status): never user ids, chats or text.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from './prom';

export type CallOutcome = 'ok' | 'rate_limited' | 'error';
export type ApprovalVia = 'chat' | 'admin' | 'timeout' | 'abort' | 'mode';

export interface GatewayMetricsOptions {
  /** Also export process CPU, memory, event-loop lag and handles (prom-client's default metrics). */
  processMetrics?: boolean;
  /** Metric name prefix; default `penguin_gateway_`. */
  prefix?: string;
}

/** Latency buckets in seconds: fine below 100 ms (the first-outbound budget is 20 ms), coarse up to a minute. */
const FAST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Tasks run from seconds to many minutes. */
const TASK_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export class GatewayMetrics {
  readonly registry: Registry;
  private readonly prefix: string;
  private readonly inboundEvents: Counter<'platform' | 'kind'>;
  private readonly tasksStarted: Counter<'platform'>;
  private readonly tasksFinished: Counter<'platform' | 'status'>;
  private readonly platformCalls: Counter<'platform' | 'method' | 'outcome'>;
  private readonly rateLimits: Counter<'platform'>;
  private readonly approvalDecisions: Counter<'decision' | 'via'>;
  private readonly modelRequests: Counter<'status'>;
  private readonly firstOutboundSeconds: Histogram<'platform'>;
  private readonly taskSeconds: Histogram<'platform' | 'status'>;
  private readonly platformCallSeconds: Histogram<'platform' | 'method'>;
  private readonly idleCollections: Counter;
  private readonly idleCollectionSeconds: Counter;

  constructor(opts: GatewayMetricsOptions = {}) {
    const p = opts.prefix ?? 'penguin_gateway_';
    this.prefix = p;
    const registers = [(this.registry = new Registry())];
    this.inboundEvents = new Counter({ name: `${p}inbound_events_total`, help: 'Inbound platform events acted on, by platform and kind (message, command, action, ...).', labelNames: ['platform', 'kind'], registers });
    this.tasksStarted = new Counter({ name: `${p}tasks_started_total`, help: 'Agent Tasks started, by platform.', labelNames: ['platform'], registers });
    this.tasksFinished = new Counter({ name: `${p}tasks_finished_total`, help: 'Agent Tasks finished, by platform and final status.', labelNames: ['platform', 'status'], registers });
    this.platformCalls = new Counter({ name: `${p}platform_calls_total`, help: 'Outbound platform API calls, by platform, method and outcome.', labelNames: ['platform', 'method', 'outcome'], registers });
    this.rateLimits = new Counter({ name: `${p}platform_rate_limited_total`, help: 'HTTP 429 (rate limited) answers received from a platform.', labelNames: ['platform'], registers });
    this.approvalDecisions = new Counter({ name: `${p}approval_decisions_total`, help: 'Approval decisions, by decision and where they came from.', labelNames: ['decision', 'via'], registers });
    this.modelRequests = new Counter({ name: `${p}model_requests_total`, help: 'Model requests ended, by request_end status.', labelNames: ['status'], registers });
    this.firstOutboundSeconds = new Histogram({ name: `${p}inbound_to_first_outbound_seconds`, help: 'Time from an inbound event to the first outbound platform call for it.', labelNames: ['platform'], buckets: FAST_BUCKETS, registers });
    this.taskSeconds = new Histogram({ name: `${p}task_duration_seconds`, help: 'Agent Task duration, by platform and final status.', labelNames: ['platform', 'status'], buckets: TASK_BUCKETS, registers });
    this.platformCallSeconds = new Histogram({ name: `${p}platform_call_seconds`, help: 'Outbound platform API call latency, by platform and method.', labelNames: ['platform', 'method'], buckets: FAST_BUCKETS, registers });
    this.idleCollections = new Counter({ name: `${p}idle_collections_total`, help: 'Garbage collections run because the gateway went quiet (sessions.idle_gc_ms).', registers });
    this.idleCollectionSeconds = new Counter({ name: `${p}idle_collection_seconds_total`, help: 'Time the idle collections held the event loop.', registers });
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: p });
  }

  inbound(platform: string, kind: string): void {
    this.inboundEvents.inc({ platform, kind });
  }

  taskStarted(platform: string): void {
    this.tasksStarted.inc({ platform });
  }

  taskFinished(platform: string, status: string, durationMs: number): void {
    this.tasksFinished.inc({ platform, status });
    this.taskSeconds.observe({ platform, status }, seconds(durationMs));
  }

  platformCall(platform: string, method: string, outcome: CallOutcome, durationMs: number): void {
    this.platformCalls.inc({ platform, method, outcome });
    this.platformCallSeconds.observe({ platform, method }, seconds(durationMs));
    if (outcome === 'rate_limited') this.rateLimits.inc({ platform });
  }

  idleCollected(durationMs: number): void {
    this.idleCollections.inc();
    this.idleCollectionSeconds.inc(seconds(durationMs));
  }

  approvalDecided(decision: 'allow' | 'deny' | 'expired', via: ApprovalVia): void {
    this.approvalDecisions.inc({ decision, via });
  }

  /** Each adapter's connection as /readyz sees it, read when /metrics is scraped. */
  watchAdapters(list: () => ReadonlyArray<{ name: string; state: string; last_inbound_at?: number }>): void {
    const p = this.prefix;
    const registers = [this.registry];
    new Gauge({
      name: `${p}adapter_up`, help: 'Whether each adapter is connected (1) or not (0); disabled adapters are left out.', labelNames: ['platform'], registers,
      collect() {
        this.reset();
        for (const a of list()) if (a.state !== 'disabled') this.set({ platform: a.name }, a.state === 'connected' ? 1 : 0);
      },
    });
    new Gauge({
      name: `${p}adapter_last_inbound_timestamp_seconds`, help: 'When each adapter last heard from its platform (an event, a poll answer, a heartbeat).', labelNames: ['platform'], registers,
      collect() {
        this.reset();
        for (const a of list()) if (a.last_inbound_at) this.set({ platform: a.name }, a.last_inbound_at / 1000);
      },
    });
  }

  modelRequest(status: string): void {
    this.modelRequests.inc({ status });
  }

  firstOutbound(platform: string, latencyMs: number): void {
    this.firstOutboundSeconds.observe({ platform }, seconds(latencyMs));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

function seconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0;
}
