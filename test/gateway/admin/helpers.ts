/**
 * Admin API test harness: a temp PENGUIN_HOME with a real SqliteStore, the real express app listening on
 * 127.0.0.1 (port 0), a scripted fake AdminRuntime backed by the same store, a logger whose lines are
 * captured, and a first-start admin token read from what ensureAdminToken printed. `close()` removes it all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminApp, ensureAdminToken, GatewayMetrics, listenAdmin, type AdminListener, type AdminRuntime, type RuntimeHealth } from '../../../src/gateway/admin';
import { loadGatewayConfig, type GatewayConfig } from '../../../src/gateway/config';
import { createLogger } from '../../../src/gateway/logger';
import type { RateBudgetInfo, ResendOutcome, RunningTaskInfo } from '../../../src/gateway/admin/types';
import { TraceFeed } from '../../../src/gateway/runtime/trace-feed';
import { openSqliteStore, type PairingRow, type PricingLookup, type SqliteStore } from '../../../src/gateway/store';

export interface FakeRuntime extends AdminRuntime {
  healthState: RuntimeHealth;
  decisions: { id: string; decision: 'allow' | 'deny'; actor: string }[];
  pairings: PairingRow[];
  tasks: RunningTaskInfo[];
  budgets: RateBudgetInfo[];
  /** Sessions stopped through the runtime. */
  stopped: string[];
  /** What resendDelivery answers (default: not found). */
  resend: (id: number) => Promise<ResendOutcome>;
  /** Publish trace batches to watchers, as the gateway's trace observer does. */
  feed: TraceFeed;
}

export function fakeRuntime(store: SqliteStore): FakeRuntime {
  const rt: FakeRuntime = {
    healthState: { accepting: true, adapters: [] },
    decisions: [],
    pairings: [],
    tasks: [],
    budgets: [],
    stopped: [],
    feed: new TraceFeed(),
    resend: async (id) => ({ ok: false, code: 'not_found', message: `no delivery ${id}` }),
    health: () => rt.healthState,
    runningTasks: () => rt.tasks,
    rateBudgets: () => rt.budgets,
    async stopSession(id) {
      if (!rt.tasks.some((t) => t.session_id === id)) return 'not_running';
      rt.stopped.push(id);
      rt.tasks = rt.tasks.filter((t) => t.session_id !== id);
      return 'stopped';
    },
    resendDelivery: (id) => rt.resend(id),
    watchSession: (id, listener) => rt.feed.subscribe(id, listener),
    async decideApproval(id, decision, actor) {
      rt.decisions.push({ id, decision, actor });
      const row = await store.getApproval(id);
      if (!row) return { ok: false, code: 'not_found', message: `no approval ${id}` };
      if (row.state === 'expired') return { ok: false, code: 'expired', message: `approval ${id} expired` };
      const r = await store.decideApproval(id, decision === 'allow' ? 'allowed' : 'denied', actor);
      if (!r || !r.changed) return { ok: false, code: 'already_decided', message: `approval ${id} is already ${row.state}` };
      return { ok: true, state: r.row.state };
    },
    async pairingDecided(row) {
      rt.pairings.push(row);
    },
  };
  return rt;
}

export interface Harness {
  dir: string;
  home: string;
  config: GatewayConfig;
  store: SqliteStore;
  runtime: FakeRuntime;
  metrics: GatewayMetrics;
  listener: AdminListener;
  token: string;
  /** Every captured log line, parsed. */
  logs: Record<string, unknown>[];
  /** The raw log text. */
  logText(): string;
  /** What ensureAdminToken printed. */
  printed: string;
  /** fetch against the app; `auth: false` sends no Authorization header, a string sends that token. */
  call(path: string, init?: RequestInit & { auth?: boolean | string; json?: unknown }): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHarness(opts: { env?: Record<string, string>; pricing?: PricingLookup; now?: () => number; dashboardDir?: string } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-admin-'));
  const home = join(dir, 'home');
  const env: Record<string, string> = { HOME: dir, PENGUIN_HOME: home, ...opts.env };
  const loaded = loadGatewayConfig({ env, cwd: dir });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const config: GatewayConfig = { ...loaded.config, logging: { level: 'trace' } };
  const store = openSqliteStore(config.db_path);
  const runtime = fakeRuntime(store);
  const metrics = new GatewayMetrics();
  let raw = '';
  const logger = createLogger(config, { write: (s: string) => void (raw += s) });
  let printed = '';
  await ensureAdminToken(store, env, { isTTY: true, write: (s: string) => (printed += s) }, home);
  const token = /^ {4}(\S+)$/m.exec(printed)?.[1] ?? env.PENGUIN_ADMIN_TOKEN ?? '';
  const app = createAdminApp({
    config, store, metrics, runtime, logger,
    ...(opts.pricing ? { pricing: opts.pricing } : {}), ...(opts.now ? { now: opts.now } : {}), ...(opts.dashboardDir ? { dashboardDir: opts.dashboardDir } : {}),
  });
  const listener = await listenAdmin(app, { host: '127.0.0.1', port: 0 });

  const h: Harness = {
    dir,
    home,
    config,
    store,
    runtime,
    metrics,
    listener,
    token,
    printed,
    get logs() {
      return raw
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => raw,
    async call(path, init = {}) {
      const { auth = true, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (auth !== false) headers.set('authorization', `Bearer ${typeof auth === 'string' ? auth : token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const res = await fetch(`${listener.url}${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, body, text, headers: res.headers };
    },
    async close() {
      await listener.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}
