/**
 * The gateway process's parts wired together (gateway.md §7): store, metrics, rate governor, outbox,
 * agent pool, approval broker, session manager, inbound handler, adapters and the HTTP listener (admin API
 * + adapter routes). `createGateway` starts it and returns a handle whose `shutdown()` stops taking
 * events, aborts running Tasks ("gateway shutting down"), finalises live replies, flushes traces and
 * closes the DB within the configured grace time. Adapters are injected so tests can use fakes.
 */
import express, { type Express } from 'express';
import { chmod, mkdir, stat } from 'node:fs/promises';
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { systemClock, type Clock } from '../../adapters/contract/clock';
import { tryParseBindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import { RateGovernor, SecretRedactor } from '../../adapters/render';
import { loadProjectConfig, resolveModel as resolveProjectModel, agentPaths } from '../../core/state';
import { createAdminApp } from '../admin/app';
import { listenAdmin, type AdminListener } from '../admin/listen';
import { requestLog } from '../admin/request-log';
import { GatewayMetrics } from '../admin/metrics';
import { ensureAdminToken } from '../admin/token';
import type { AdapterStatus, AdminRuntime } from '../admin/types';
import { resolveRoute, type GatewayConfig } from '../config';
import type { Logger } from '../logger';
import { openSqliteStore, type GatewayStore, type PricingRates } from '../store';
import { AgentPool } from './agent-pool';
import { ApprovalBroker } from './approval-broker';
import { GatewayInbound, routeScopeOf } from './inbound';
import { meterAdapter } from './metered-adapter';
import { Outbox } from './outbox';
import { SessionManager } from './session-manager';
import { resolveToolIsolation } from './tool-isolation';

/** An adapter plus the HTTP routes it serves on the gateway listener (Telegram webhook, web playground). */
export interface PlatformBinding {
  adapter: ChannelAdapter;
  /** Mounted before the admin API; the adapter validates its own requests. */
  routes?: (app: Express) => void;
}

export interface GatewayOptions {
  config: GatewayConfig;
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Where the one-time admin token (or the file holding it) is printed; the token itself only on a terminal. */
  stdout: { write(s: string): unknown; isTTY?: boolean };
  /** Builds the platform adapters once the runtime exists. */
  platforms: (ctx: { store: GatewayStore; logger: Logger }) => PlatformBinding[] | Promise<PlatformBinding[]>;
  clock?: Clock;
  /** Shared with the logger (main.ts) so log lines are masked too; one is made when absent. */
  redactor?: SecretRedactor;
}

export interface GatewayHandle {
  readonly url: string;
  readonly store: GatewayStore;
  readonly manager: SessionManager;
  readonly metrics: GatewayMetrics;
  health(): ReturnType<AdminRuntime['health']>;
  shutdown(reason?: string): Promise<void>;
}

/** A conversation's DM-ness from its thread alone (used when the original message is gone, e.g. after a restart). */
export function threadLooksLikeDM(t: ThreadRef): boolean {
  if (t.platform === 'telegram') return !t.chat.startsWith('-');
  if (t.platform === 'discord') return t.guild === null;
  if (t.platform === 'web') return true;
  return t.channel.startsWith('D');
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
  ];
}

function pricingLookup(home: string, env: Record<string, string | undefined>) {
  return async (projectId: string, provider: string, modelId: string): Promise<PricingRates | undefined> => {
    try {
      const p = agentPaths(home, projectId, 'default_agent');
      const loaded = await loadProjectConfig(p.projectConfig);
      if (!loaded?.ok) return undefined;
      const r = resolveProjectModel(loaded.value, p.projectConfig, { provider, model_id: modelId }, env);
      const pr = r.ok ? r.value.entry.pricing : undefined;
      return pr ? { cache_read: pr.cache_read ?? 0, cache_write: pr.cache_write ?? 0, output: pr.output ?? 0 } : undefined;
    } catch {
      return undefined;
    }
  };
}

export async function createGateway(o: GatewayOptions): Promise<GatewayHandle> {
  const { config, env, logger } = o;
  const clock = o.clock ?? systemClock;
  await ensurePrivateDir(config.home, logger);
  const store = openSqliteStore(config.db_path);
  const admin = await ensureAdminToken(store, env, o.stdout, config.home);
  const metrics = new GatewayMetrics({ processMetrics: true });
  const governor = new RateGovernor(clock);
  const redactor = o.redactor ?? new SecretRedactor();
  redactor.add([...gatewayCredentials(config), admin.source === 'generated' ? admin.token : undefined]);
  const outbox = new Outbox({ governor, clock, logger, redactor });
  const tools = await resolveToolIsolation(config);
  logger[tools.notice.level]({ sandbox: tools.isolation.sandbox.kind }, tools.notice.message);
  const pool = new AgentPool({
    home: config.home, env, isolation: tools.isolation, warn: (m) => logger.warn(m), onTraceError: (err, sessionId) => logger.error({ err, sessionId }, 'trace write failed'),
    onLoaded: ({ state }) => redactor.add([...Object.values(state.vault), ...state.project.models.map((m) => m.api_key)]),
  });
  const broker = new ApprovalBroker({ store, outbox, clock, logger, metrics, timeoutMs: config.approvals.timeout_ms });
  const lookup = pricingLookup(config.home, env);
  const pricingCache = new Map<string, PricingRates | undefined>();
  const manager = new SessionManager({
    config, store, pool, broker, outbox, governor, clock, logger, metrics, redactor,
    pricingOf: (provider, modelId) => pricingCache.get(`${provider}\u0000${modelId}`),
  });
  const bindings: PlatformBinding[] = [];
  const status = new Map<string, AdapterStatus>();
  const adapterFor = (p: string) => bindings.find((x) => x.adapter.platform === p)?.adapter;
  let accepting = false;
  const inbound = new GatewayInbound({
    config, store, manager, broker, outbox, clock, logger, metrics, adapterFor,
    onInbound: (platform, at) => {
      const s = status.get(platform);
      if (s) s.last_inbound_at = at;
    },
  });

  const runtime: AdminRuntime = {
    health: () => ({ accepting, adapters: [...status.values()] }),
    decideApproval: async (id, decision, actor) => {
      const r = await broker.decide(id, decision, actor, 'admin', 'the operator');
      if (r.ok) return r;
      return r.code === 'not_allowed' ? { ok: false, code: 'not_found', message: r.message } : { ok: false, code: r.code, message: r.message };
    },
    pairingDecided: (row) => inbound.pairingDecided(row),
  };
  const root = express();
  root.disable('x-powered-by');
  root.use(requestLog(logger));
  bindings.push(...(await o.platforms({ store, logger })).map((b) => ({ ...b, adapter: meterAdapter(b.adapter, metrics, clock) })));
  for (const b of bindings) b.routes?.(root);
  root.use(createAdminApp({ config, store, metrics, runtime, logger, pricing: lookup, redactor, logRequests: false }));
  let listener: AdminListener;
  try {
    listener = await listenAdmin(root, config.listen);
  } catch (err) {
    await store.close();
    throw err;
  }
  logger.info({ url: listener.url }, 'gateway listening');

  // Recover from the previous process: sessions it left busy, its approvals, its cut-off replies.
  await store.resetBusySessions();
  await broker.expireOrphans(adapterFor);
  const interrupted = await store.listOpenDeliveries({ purpose: 'live' });
  const offered = new Set<string>();
  for (const d of interrupted) {
    await store.setDeliveryState(d.id, 'interrupted');
    const adapter = adapterFor(d.platform);
    const parsed = tryParseBindingKey(d.chat);
    if (!adapter || !parsed.ok || offered.has(d.chat)) continue;
    offered.add(d.chat);
    const route = resolveRoute(config, routeScopeOf(parsed.ref));
    void manager.offerContinue({ adapter, thread: parsed.ref, isDM: threadLooksLikeDM(parsed.ref), route });
  }

  for (const b of bindings) {
    const s: AdapterStatus = { name: b.adapter.platform, state: 'connecting' };
    status.set(b.adapter.platform, s);
    try {
      await b.adapter.start(inbound.handlerFor(b.adapter));
      s.state = 'connected';
      logger.info({ platform: b.adapter.platform }, 'adapter connected');
    } catch (err) {
      s.state = 'failed';
      s.detail = (err as Error).message;
      logger.error({ platform: b.adapter.platform, err: (err as Error).message }, 'adapter failed to start');
    }
  }
  for (const p of ['telegram', 'slack', 'discord'] as const) {
    if (!status.has(p)) status.set(p, { name: p, state: 'disabled', detail: config[p].configured ? 'disabled in config' : 'no credentials' });
  }
  // Loads every routed agent once (creating its files on a first start); shutdown waits for it.
  const warming = warmPricing().catch((err: unknown) => logger.warn({ err }, 'pricing warm-up failed'));
  manager.startEviction();
  accepting = true;

  async function warmPricing(): Promise<void> {
    for (const r of [config.default_route, ...config.routes]) {
      const loaded = await pool.get(r.project, r.agent, r.tools.network);
      if (!loaded.ok) continue;
      const m = loaded.state.resolveModel();
      if (!m.ok) continue;
      const rates = await lookup(r.project, m.value.entry.provider, m.value.entry.model_id);
      pricingCache.set(`${m.value.entry.provider}\u0000${m.value.entry.model_id}`, rates);
    }
  }

  let stopping: Promise<void> | undefined;
  const shutdown = (reason = 'gateway shutting down'): Promise<void> => {
    stopping ??= (async () => {
      accepting = false;
      const work = (async () => {
        await manager.shutdown(reason);
        await broker.close();
        await warming;
      })();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((r) => {
        timer = setTimeout(r, config.shutdown.grace_ms);
        timer.unref();
      });
      await Promise.race([work, graceOver]);
      if (timer) clearTimeout(timer);
      await Promise.all(bindings.map((b) => b.adapter.stop().catch((err: unknown) => logger.warn({ err }, 'adapter stop failed'))));
      await listener.close();
      await store.close();
      logger.info('gateway stopped');
    })();
    return stopping;
  };

  return {
    url: listener.url,
    store,
    manager,
    metrics,
    health: runtime.health,
    shutdown,
  };
}
