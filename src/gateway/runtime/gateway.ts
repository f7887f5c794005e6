/**
 * The gateway process's parts wired together (gateway.md §7): store, metrics, rate governor, outbox,
 * agent pool, approval broker, session manager, inbound handler, adapters, the scheduler and the HTTP
 * listener (admin API + adapter routes). `createGateway` starts it and returns a handle whose `shutdown()` stops taking
 * events, aborts running Tasks ("gateway shutting down"), finalises live replies, flushes traces and
 * closes the DB within the configured grace time. Adapters are injected so tests can use fakes.
 */
import express, { type RequestHandler } from 'express';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { systemClock, type Clock } from '../../adapters/contract/clock';
import type { AdapterBinding } from '../../adapters/contract/binding';
import { RateGovernor, SecretRedactor } from '../../adapters/render';
import { adminGuard, createAdminApp } from '../admin/app';
import { LoginSessions } from '../admin/login';
import { listenAdmin, type AdminListener } from '../admin/listen';
import { requestLog } from '../admin/request-log';
import { GatewayMetrics } from '../admin/metrics';
import { ensureAdminToken } from '../admin/token';
import type { AdminRuntime, ScheduleAdmin } from '../admin/types';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import { pgLeadership } from '../cluster/pg-leadership';
import { approvalKey, handOverFire, watchSessionAnywhere, wireCluster } from '../cluster/wiring';
import type { LeadershipFor } from '../../adapters/contract/leadership';
import { ChatExecutor, chatListing, Scheduler, scheduleView, watchDirectories } from '../scheduler';
import { databaseUrlPassword, describeRebuild, openGatewayStore, type GatewayStore } from '../store';
import type { Clock as EngineClock } from '../../core/engine/clock';
import { PairingNotifier } from './pairing-notifier';
import { Housekeeping } from './housekeeping';
import { heapUsed } from './memory-pressure';
import type { HeapCollector } from './v8-gc';
import { IdleCollector } from './idle-collector';
import { resendDelivery } from './resend-delivery';
import { TraceFeed } from './trace-feed';
import { TraceLedger } from './trace-ledger';

/** Decisions written by another process reach their people within this. */
const PAIRING_POLL_MS = 2000;
import { AdapterBoard } from './adapter-board';
import { AgentPool } from './agent-pool';
import { warmAgents, type AgentReport } from './agent-warmup';
import { ApprovalBroker } from './approval-broker';
import { GatewayInbound } from './inbound';
import { isDeferred, LatePlatforms, type PlatformEntry } from './late-platforms';
import { meterAdapter } from './metered-adapter';
import { Outbox } from './outbox';
import { PricingBook } from './pricing-book';
import { INTERRUPTED_NOTE, recoverInterruptedReplies } from './restart-recovery';
import { SessionManager, type SessionManagerOptions } from './session-manager';
import { resolveToolIsolation } from './tool-isolation';

/** An adapter plus the HTTP routes it serves on the gateway listener (Telegram webhook, web playground). */
export type PlatformBinding = AdapterBinding;

/** An embedding without V8's collector: the idle collector is off (quiet time 0), this never runs. */
const NO_COLLECTOR: HeapCollector = { collect: () => undefined, youngGenerationGrown: () => false };

export interface GatewayOptions {
  config: GatewayConfig;
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Where the one-time admin token (or the file holding it) is printed; the token itself only on a terminal. */
  stdout: { write(s: string): unknown; isTTY?: boolean };
  /**
   * Builds the platform adapters once the runtime exists; `auth` guards routes as the admin API does.
   * Bindings start first, then the deferred ones are loaded and started (./late-platforms.ts).
   */
  platforms: (ctx: { store: GatewayStore; logger: Logger; auth: RequestHandler; leadership?: LeadershipFor; liveInstances?: () => number }) => PlatformEntry[] | Promise<PlatformEntry[]>;
  clock?: Clock;
  /** Shared with the logger (main.ts) so log lines are masked too; one is made when absent. */
  redactor?: SecretRedactor;
  /** How often pairing decisions made elsewhere (the CLI) are looked for; default 2000 ms. */
  pairingPollMs?: number;
  /** The engine's time (its reconnect waits); the system clock when absent. */
  engineClock?: EngineClock;
  /** Scheduler timings (tests); defaults otherwise. */
  scheduler?: { rescanMs?: number; pollMs?: number; graceMs?: number };
  /** The heap in use and its budget as the session manager sees them (tests); V8's otherwise. */
  memory?: SessionManagerOptions['memory'];
  /**
   * The process's full garbage collection, run once the gateway has been quiet for `sessions.idle_gc_ms`
   * (./idle-collector.ts). The CLI's process passes V8's; an embedding (the tests) leaves its heap alone.
   */
  collectGarbage?: HeapCollector;
}

export interface GatewayHandle {
  readonly url: string;
  readonly store: GatewayStore;
  readonly manager: SessionManager;
  readonly metrics: GatewayMetrics;
  readonly scheduler: Scheduler;
  /** Where the admin credential comes from; for a token generated now, the file it went to (off a terminal). */
  readonly adminToken: { source: 'env' | 'store' | 'generated'; file?: string };
  /** Settles once the start-up warm-up has loaded every routed agent: how each one stands (empty if it failed). */
  readonly agents: Promise<AgentReport[]>;
  health(): ReturnType<AdminRuntime['health']>;
  shutdown(reason?: string): Promise<void>;
}

/** The data root holds traces, the database and vaults: only the gateway's user may enter it. */
async function ensurePrivateDir(dir: string, logger: Logger): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  await chmod(dir, 0o700);
  logger.warn({ dir, was: mode.toString(8) }, 'made the data root private (mode 700): it holds traces, the database and vaults');
}

/** The gateway's own credentials: never to be shown anywhere, should a tool or the model print one. */
export function gatewayCredentials(config: GatewayConfig): (string | undefined)[] {
  return [
    config.admin_token, config.model.api_key, config.telegram.bot_token, config.telegram.webhook_secret,
    config.slack.bot_token, config.slack.signing_secret, config.slack.app_token, config.discord.bot_token,
    config.database_url === undefined ? undefined : databaseUrlPassword(config.database_url),
  ];
}

export async function createGateway(o: GatewayOptions): Promise<GatewayHandle> {
  const { config, env, logger } = o;
  const clock = o.clock ?? systemClock;
  await ensurePrivateDir(config.home, logger);
  const opened = await openGatewayStore({ dbPath: config.db_path, databaseUrl: config.database_url, home: config.home });
  if (opened.rebuilt) logger.warn({ reason: opened.rebuilt.reason, problems: opened.rebuilt.report.problems.slice(0, 20) }, describeRebuild(opened.rebuilt, opened.index.location));
  const store = opened.store;
  const admin = await ensureAdminToken(store, env, o.stdout, config.home, logger);
  const metrics = new GatewayMetrics({ processMetrics: true });
  // Instances on one database share each bot's account budgets; `cluster` exists before anything sends.
  const governor = new RateGovernor(clock, { sharers: () => cluster.size() });
  const redactor = o.redactor ?? new SecretRedactor();
  redactor.add([...gatewayCredentials(config), admin.source === 'generated' ? admin.token : undefined]);
  const outbox = new Outbox({ governor, clock, logger, redactor });
  const tools = await resolveToolIsolation(config);
  logger[tools.notice.level]({ sandbox: tools.isolation.sandbox.kind }, tools.notice.message);
  const ledger = new TraceLedger({ store, logger, metrics });
  const feed = new TraceFeed();
  const pool = new AgentPool({
    home: config.home, env, isolation: tools.isolation, warn: (m) => logger.warn(m), onTraceError: (err, sessionId) => logger.error({ err, sessionId }, 'trace write failed'),
    traceObserver: (project, agent) => {
      const index = ledger.observer(project, agent);
      return (msgs, who) => {
        index(msgs, who);
        feed.publish(who.sessionId, msgs);
      };
    },
    ...(o.engineClock ? { clock: o.engineClock } : {}),
    onLoaded: ({ state }) => redactor.add([...Object.values(state.vault), ...state.project.models.map((m) => m.api_key)]),
  });
  const broker = new ApprovalBroker({ store, outbox, clock, logger, metrics, timeoutMs: config.approvals.timeout_ms });
  const prices = new PricingBook(config.home, env);
  const manager = new SessionManager({ config, store, pool, broker, outbox, governor, clock, logger, metrics, redactor, pricingOf: prices.rates, ...(o.memory ? { memory: o.memory } : {}) });
  const bindings: PlatformBinding[] = [];
  const board = new AdapterBoard(logger);
  metrics.watchAdapters(() => board.list());
  const adapterFor = (p: string) => bindings.find((x) => x.adapter.platform === p)?.adapter;
  let accepting = false;
  const notifier = new PairingNotifier({
    store, clock, logger, intervalMs: o.pairingPollMs ?? PAIRING_POLL_MS,
    runs: (p) => adapterFor(p) !== undefined,
    tell: (row) => inbound.pairingDecided(row),
  });
  let listenerUrl: string | null = null;
  const decide = async (id: string, decision: 'allow' | 'deny', actor: string) => {
    const r = await broker.decide(id, decision, actor, 'admin', 'the operator');
    if (r.ok) return r;
    return r.code === 'not_allowed' ? { ok: false as const, code: 'not_found' as const, message: r.message } : { ok: false as const, code: r.code, message: r.message };
  };
  const cluster = wireCluster({
    config, store, clock, logger, manager, broker, outbox, adapterFor, decide,
    url: () => listenerUrl,
    handlerFor: (a) => inbound.handlerFor(a),
    fireHandedOver: (runId) => scheduler.fireHandedOver(runId),
  });
  const idle = new IdleCollector({
    clock, logger, quietMs: o.collectGarbage ? config.sessions.idle_gc_ms : 0, busy: () => manager.busy, heap: o.collectGarbage ?? NO_COLLECTOR, heapUsed,
    collected: (ms) => metrics.idleCollected(ms),
  });
  const housekeeping = new Housekeeping({ store, clock, logger, deliveryEventsDays: config.retention.delivery_events_days });
  const scheduler = new Scheduler({
    config, store, clock, logger,
    executor: new ChatExecutor({
      config, store, manager, outbox, logger,
      adapterFor: (p) => (board.isRunning(p) ? adapterFor(p) : undefined),
      whyAbsent: (p) => board.whyAbsent(p),
      ownerElsewhere: (key) => cluster.ownerElsewhere(key),
      handOver: (owner, runId, waitMs) => handOverFire(cluster, owner, runId, waitMs),
    }),
    watch: (changed) => watchDirectories(changed, { clock, onError: (dir, err) => logger.warn({ dir, err: err.message }, 'schedule directory no longer watched; rescans still see changes') }),
    instance: { id: cluster.id, livePeers: async () => cluster.livePeers() },
    ...o.scheduler,
  });
  let schedulerUp = false;
  const inbound = new GatewayInbound({
    config, store, manager, broker, outbox, clock, logger, metrics, adapterFor, onInbound: (p, at) => {
      board.touch(p, at);
      idle.activity();
    },
    schedules: (conv) => (schedulerUp ? chatListing(scheduler, conv.route, conv.thread) : 'The scheduler is not running in this gateway (see its log).'),
  });
  const scheduleAdmin: ScheduleAdmin = {
    list: () => Promise.all(scheduler.entries().map((t) => scheduleView(scheduler, t, { store, config }))),
    get: async (id) => {
      const t = scheduler.find(id);
      return t && scheduleView(scheduler, t, { store, config });
    },
    setEnabled: (id, enabled, so) => scheduler.setEnabled(id, enabled, so),
    runNow: (id) => scheduler.runNow(id),
    runs: async (id, limit) => {
      const t = scheduler.find(id);
      return t && store.listScheduleRuns({ ...t.entry.ref, limit });
    },
  };
  const runtime: AdminRuntime = {
    health: () => ({ accepting, adapters: board.list(), instance: cluster.health() }),
    // An approval waits in the memory of the instance running its Task: decided there.
    decideApproval: async (id, decision, actor) => cluster.atOwner(await approvalKey(store, id), 'decide-approval', { id, decision, actor }, () => decide(id, decision, actor)),
    pairingDecided: () => notifier.poke(),
    runningTasks: () => manager.runningTasks(),
    rateBudgets: () => governor.stats().filter((b) => b.pausedUntil !== null || b.tokens < b.capacity)
      .map((b) => ({ key: b.key, tokens: Math.floor(b.tokens * 100) / 100, capacity: b.capacity, paused_until: b.pausedUntil })),
    stopSession: async (id) => cluster.atOwner((await store.getSession(id))?.binding_key, 'stop-session', { id }, () => manager.stopSession(id)),
    resendDelivery: (id) => resendDelivery(id, { store, outbox, adapterFor }),
    watchSession: (id, listener) => watchSessionAnywhere({ cluster, store, home: config.home, feed }, id, listener),
    get schedules() {
      return schedulerUp ? scheduleAdmin : undefined;
    },
  };
  const sessions = new LoginSessions();
  const auth = adminGuard({ store, config, sessions });
  const metered = (b: PlatformBinding): PlatformBinding => ({ ...b, adapter: meterAdapter(b.adapter, metrics, clock) });
  const shared = config.database_url ? { leadership: pgLeadership(config.database_url, logger), liveInstances: () => cluster.size() } : {};
  const entries = await o.platforms({ store, logger, auth, ...shared });
  bindings.push(...entries.filter((e): e is PlatformBinding => !isDeferred(e)).map(metered));
  const late = new LatePlatforms(entries.filter(isDeferred));
  const listener = await listen(bindings, late.app, createAdminApp({ config, store, metrics, runtime, logger, pricing: prices.lookup, redactor, logRequests: false, sessions }), config, logger).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });

  listenerUrl = listener.url;
  // Sessions the previous process (or a dead peer instance) left busy are idle; its cards and cut-off replies are handled once adapters run.
  const takeover = await cluster.join();
  const scope = takeover && { keys: new Set(takeover.keys), note: INTERRUPTED_NOTE };
  await store.resetBusySessions(scope?.keys);
  const handlerFor = (b: PlatformBinding) => cluster.route(inbound.handlerFor(b.adapter));
  late.announce(board);
  await board.startAll(bindings, handlerFor);
  const addLate = (b: PlatformBinding): PlatformBinding => {
    const m = metered(b);
    bindings.push(m);
    return m;
  };
  await late.start({ board, handlerFor, add: addLate });
  // Letters may name any platform: they are taken once every adapter runs (they wait in the database until then).
  await cluster.start();
  board.noteAbsent(config);
  const agents = warmAgents(config, pool, prices, logger).catch((err: unknown): AgentReport[] => {
    logger.warn({ err }, 'agent warm-up failed');
    return [];
  });
  const warmed = agents.then(() => undefined);
  const background = [
    recoverInterruptedReplies({ config, store, broker, manager, outbox, logger, adapterFor }, scope).catch((err: unknown) => logger.warn({ err }, 'recovering interrupted replies failed')),
    warmed,
  ];
  manager.startEviction();
  notifier.start();
  housekeeping.start();
  try {
    await scheduler.start();
    schedulerUp = true;
    // A first start creates the agents' directories while warming up: look again, so they are watched.
    background.push(warmed.then(() => scheduler.reload()).catch((err: unknown) => logger.warn({ err }, 'schedules not re-read after warm-up')));
  } catch (err) {
    logger.error({ err }, 'the scheduler did not start; chats are unaffected');
  }
  accepting = true;
  // Start-up's own garbage goes too once the gateway has settled.
  idle.activity();

  let stopping: Promise<void> | undefined;
  const shutdown = (reason = 'gateway shutting down'): Promise<void> => {
    stopping ??= (async () => {
      accepting = false;
      await cluster.pause().catch((err: unknown) => logger.warn({ err }, 'the cluster mailbox did not stop cleanly'));
      await withinGrace(config.shutdown.grace_ms, async () => {
        await scheduler.stop();
        await manager.shutdown(reason);
        await scheduler.settled();
        await notifier.stop();
        await housekeeping.stop();
        idle.stop();
        await broker.close();
        await Promise.all(background);
      });
      // The agents stop watching their files.
      pool.invalidate();
      await Promise.all(bindings.map((b) => b.adapter.stop().catch((err: unknown) => logger.warn({ err }, 'adapter stop failed'))));
      await cluster.leave().catch((err: unknown) => logger.warn({ err }, 'leaving the cluster failed'));
      await listener.close();
      await ledger.settled();
      await store.close();
      logger.info('gateway stopped');
    })();
    return stopping;
  };
  const adminToken = admin.source === 'generated' ? { source: admin.source, ...(admin.file ? { file: admin.file } : {}) } : { source: admin.source };
  return { url: listener.url, store, manager, metrics, scheduler, adminToken, agents, health: runtime.health, shutdown };
}

/** One listener: the request log, each adapter's routes (the late adapters' as they load), then the admin API. */
async function listen(bindings: readonly PlatformBinding[], lateApp: express.Express, adminApp: express.Express, config: GatewayConfig, logger: Logger): Promise<AdminListener> {
  const root = express();
  root.disable('x-powered-by');
  root.use(requestLog(logger));
  for (const b of bindings) b.routes?.(root);
  root.use(lateApp);
  root.use(adminApp);
  const listener = await listenAdmin(root, config.listen);
  logger.info({ url: listener.url }, 'gateway listening');
  return listener;
}

/** Runs `work`, but returns after `graceMs` at the latest (a shutdown must end in bounded time). */
async function withinGrace(graceMs: number, work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((r) => {
    timer = setTimeout(r, graceMs);
    timer.unref();
  });
  await Promise.race([work(), graceOver]);
  if (timer) clearTimeout(timer);
}
