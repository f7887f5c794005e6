/**
 * One end-to-end cluster world per test: a fresh PostgreSQL database on the run's test server, the platform
 * fakes asked for (the Bot API in webhook mode pointed at the fake load balancer by default; the fake Slack
 * delivering to the balancer or over Socket Mode), the fake model, and real gateway processes (ids `a`, `b`,
 * …) sharing one PENGUIN_HOME and PENGUIN_DATABASE_URL, set up through the public environment and config
 * file only (telegram-world.ts's, slack-world.ts's). Each started gateway joins the balancer; `crash(id)`
 * kills it -9 and takes it out. `close()` kills every gateway, stops the fakes, drops the database, removes the dir.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { FakeLoadBalancer } from '../fakes/load-balancer';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { FakeSlackServer, type FakeSlackOptions } from '../fakes/slack-server';
import { FakeTelegramServer, type FakeTelegramOptions } from '../fakes/telegram-server';
import { serverUrl } from '../gateway/store/backends';
import { sharedServer } from '../helpers/pg-server';
import { adminRequest, type AdminInit } from './admin-request';
import { killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';
import { mergeSlackConfig, slackEnv, waitReady } from './slack-world';
import { ADMIN_TOKEN, DM_USER, LENIENT_LIMITS, MODEL_KEY, mergeConfig, writeGatewaySetup } from './telegram-world';

export { POSTGRES_SKIPPED } from '../gateway/store/backends';

/** The webhook route the gateway mounts (README "Telegram", webhook mode). */
export const WEBHOOK_PATH = '/telegram/webhook';
export const WEBHOOK_SECRET = 'cluster-e2e-webhook-secret';
/** Slack's Events API and interactivity route on every instance (README "Slack", HTTP mode). */
export const SLACK_EVENTS_PATH = '/slack/events';
/** Two processes on two shared cores start slower than one. */
const START_TIMEOUT_MS = 30_000;

export interface ClusterOptions {
  /** Instance ids, default ['a', 'b']. */
  ids?: string[];
  /** The platforms the gateways run, default { telegram: true }. */
  platforms?: { telegram?: boolean; slack?: 'http' | 'socket' };
  /** Merged over the worlds' FAST_CONFIGs; telegram webhook mode is set on top unless `polling`. */
  config?: Record<string, any>;
  /** Long polling instead of the webhook: the instances elect the one that polls. */
  polling?: boolean;
  telegram?: FakeTelegramOptions;
  slack?: FakeSlackOptions;
  /** Extra or overriding environment for every gateway. */
  env?: Record<string, string>;
}

export interface ClusterWorld {
  dir: string;
  home: string;
  databaseUrl: string;
  /** The fake Bot API (throws when the world runs no Telegram). */
  readonly tg: FakeTelegramServer;
  /** The fake Slack (throws when the world runs no Slack). */
  readonly slack: FakeSlackServer;
  model: FakeOpenAIServer;
  lb: FakeLoadBalancer;
  readonly ids: readonly string[];
  /** The running gateway with this id (throws when it is not running). */
  gw(id: string): GatewayProcess;
  /** Ids of the gateways running now. */
  running(): string[];
  /** The id of the gateway that listened at `url` (a backend URL in the balancer's log), crashed or not. */
  idOf(url: string | undefined): string | undefined;
  /** Starts the gateway `id` and adds it to the balancer once it listens (with Slack: once it is ready). */
  start(id: string): Promise<GatewayProcess>;
  /** Starts every id, one after another (the first creates the schema). */
  startAll(): Promise<void>;
  /** kill -9 (nothing is cleaned up) and out of the balancer. */
  crash(id: string): Promise<void>;
  /** An admin API call to one instance directly. */
  admin(id: string, path: string, init?: AdminInit): Promise<{ status: number; body: any }>;
  /** GET /readyz of one instance directly. */
  readyz(id: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** A database of its own on the run's server: advisory locks and NOTIFY channels are per database. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = await sharedServer();
  const maintenance = serverUrl(server);
  const name = `cluster_${randomBytes(5).toString('hex')}`;
  const onServer = async (sql: string) => {
    const c = new pg.Client({ connectionString: maintenance });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(maintenance);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function openCluster(o: ClusterOptions = {}): Promise<ClusterWorld> {
  const ids = o.ids ?? ['a', 'b'];
  const platforms = o.platforms ?? { telegram: true };
  const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-cluster-'));
  const tg = platforms.telegram ? new FakeTelegramServer({ rateLimits: LENIENT_LIMITS, ...o.telegram }) : undefined;
  const slack = platforms.slack ? new FakeSlackServer({ delivery: platforms.slack, ...o.slack }) : undefined;
  const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Title' }) });
  const lb = new FakeLoadBalancer();
  let db: { url: string; drop(): Promise<void> } | undefined;
  const stopAll = async () => {
    await killAllGateways();
    await Promise.all([tg?.stop(), slack?.stop(), model.stop(), lb.stop()]);
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [telegram, slackCreds, , lbUrl] = await Promise.all([tg?.start(), slack?.start(), model.start(), lb.start()]);
    db = await freshDatabase();
    let config = mergeConfig(o.config);
    if (tg && !o.polling) config.telegram = { ...config.telegram, mode: 'webhook', webhook_url: `${lbUrl}${WEBHOOK_PATH}`, webhook_secret: WEBHOOK_SECRET };
    const platformEnv: Record<string, string> = {};
    if (slack && slackCreds) {
      config = mergeSlackConfig(config);
      Object.assign(platformEnv, slackEnv(slackCreds, platforms.slack!));
      if (telegram) platformEnv.PENGUIN_ALLOW_USERS = `telegram:${DM_USER},${platformEnv.PENGUIN_ALLOW_USERS}`;
      if (platforms.slack === 'http') slack.setRequestUrl(`${lbUrl}${SLACK_EVENTS_PATH}`);
    }
    const env = await writeGatewaySetup({
      dir, apiRoot: telegram?.apiRoot, token: telegram?.token, modelUrl: model.baseUrl, config, env: { PENGUIN_DATABASE_URL: db.url, ...platformEnv, ...o.env },
    });
    const gateways = new Map<string, GatewayProcess>();
    /** Every URL a gateway of this world listened on, crashed ones too (the balancer's log names them). */
    const urls = new Map<string, string>();
    let closed = false;
    const gw = (id: string) => {
      const g = gateways.get(id);
      if (!g) throw new Error(`gateway ${id} is not running (running: ${[...gateways.keys()].join(', ') || 'none'})`);
      return g;
    };
    const world: ClusterWorld = {
      dir,
      home: env.PENGUIN_HOME,
      databaseUrl: db.url,
      get tg() {
        if (!tg) throw new Error('this cluster world runs no Telegram (platforms.telegram)');
        return tg;
      },
      get slack() {
        if (!slack) throw new Error('this cluster world runs no Slack (platforms.slack)');
        return slack;
      },
      model,
      lb,
      ids,
      gw,
      running: () => [...gateways.keys()],
      idOf: (url) => (url === undefined ? undefined : urls.get(url)),
      async start(id) {
        if (gateways.has(id)) throw new Error(`gateway ${id} is already running`);
        const g = await spawnGateway({ dir, env: { ...env, PENGUIN_INSTANCE_ID: id }, startTimeoutMs: START_TIMEOUT_MS });
        gateways.set(id, g);
        urls.set(g.url, id);
        void g.exited.then(() => {
          if (gateways.get(id) === g) gateways.delete(id);
        });
        if (slack) await waitReady(g);
        lb.add(g.url);
        return g;
      },
      async startAll() {
        for (const id of ids) await world.start(id);
      },
      async crash(id) {
        const g = gw(id);
        await g.crash();
        gateways.delete(id);
        lb.remove(g.url);
      },
      admin: (id, path, init) => adminRequest(gw(id).url, ADMIN_TOKEN, path, init),
      async readyz(id) {
        const res = await fetch(`${gw(id).url}/readyz`);
        return { status: res.status, body: await res.json() };
      },
      async close() {
        if (closed) return;
        closed = true;
        await stopAll();
      },
    };
    return world;
  } catch (err) {
    await stopAll().catch(() => undefined);
    throw err;
  }
}
