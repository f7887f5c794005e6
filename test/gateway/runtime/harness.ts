/**
 * Test harness for the gateway runtime in-process: a temp PENGUIN_HOME, the fake OpenAI server, the real
 * config loader fed the public env contract, `createGateway` with the web adapter (plus any extra
 * adapters), and small HTTP helpers that speak to the listener with the admin token.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { WebAdapter, webRoutes, type WebMessage } from '../../../src/adapters/web';
import { requireAdminToken } from '../../../src/gateway/admin/auth';
import { loadGatewayConfig, type GatewayConfig } from '../../../src/gateway/config';
import { createGateway, type GatewayHandle, type GatewayOptions } from '../../../src/gateway/runtime/gateway';
import type { PlatformEntry } from '../../../src/gateway/runtime/late-platforms';
import { FakeOpenAIServer, turn } from '../../fakes/openai-server';

export const TOKEN = 'test-admin-token-0123456789';

export interface Harness {
  home: string;
  config: GatewayConfig;
  gateway: GatewayHandle;
  web: WebAdapter;
  model: FakeOpenAIServer;
  api(path: string, init?: { method?: string; body?: unknown; token?: string | null }): Promise<{ status: number; body: any }>;
  say(conversation: string, text: string): Promise<void>;
  botMessages(conversation: string): WebMessage[];
  waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** More adapters after the web playground: bindings started at once, or deferred ones loaded after them. */
  extra?: (ctx: { config: GatewayConfig }) => PlatformEntry[];
  configFile?: string;
  /** A gateway.yaml written into the temp home and used as the config file. */
  configYaml?: string;
  /** Reuse a home (a gateway restart); it is then left in place by close(). */
  home?: string;
  model?: FakeOpenAIServer;
  /** Collects the gateway's log lines (JSON, level info and up) instead of discarding them. */
  logLines?: string[];
  /** The engine's clock (e.g. one whose sleep returns at once, so the reconnect ladder takes no time). */
  engineClock?: GatewayOptions['engineClock'];
  pairingPollMs?: number;
  /** Scheduler timings (e.g. `rescanMs: 0` when the test reloads schedules itself). */
  scheduler?: GatewayOptions['scheduler'];
  /** Runs on the data root before the gateway starts (e.g. writes schedule files). */
  prepare?: (dataRoot: string) => Promise<void>;
  /** The heap figures the session manager's memory-pressure eviction reads. */
  memory?: GatewayOptions['memory'];
  /** Stands in for V8's collection when the gateway has gone quiet (counted by the test). */
  collectGarbage?: GatewayOptions['collectGarbage'];
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const home = opts.home ?? (await mkdtemp(join(tmpdir(), 'pg-gw-')));
  const model = opts.model ?? new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'A short title' }) });
  const baseUrl = opts.model ? model.baseUrl : (await model.start()).baseUrl;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    PENGUIN_HOME: join(home, 'data'),
    PENGUIN_GATEWAY_PORT: '0',
    PENGUIN_ADMIN_TOKEN: TOKEN,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: baseUrl,
    PENGUIN_MODEL: 'fake-model',
    ...opts.env,
  };
  await opts.prepare?.(env.PENGUIN_HOME);
  let configFile = opts.configFile;
  if (opts.configYaml !== undefined) {
    configFile = join(home, 'gateway.yaml');
    await writeFile(configFile, opts.configYaml);
  }
  const loaded = loadGatewayConfig({ argv: configFile ? ['--config', configFile] : [], env, cwd: home });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const config = loaded.config;
  const web = new WebAdapter({ streaming: config.web.streaming });
  const lines = opts.logLines;
  const logger = lines
    ? pino({ level: 'info' }, { write: (l: string) => void lines.push(l) })
    : pino({ level: process.env.GW_TEST_LOG ?? 'silent' });
  const gateway = await createGateway({
    config,
    env,
    logger,
    stdout: { write: () => true },
    ...(opts.engineClock ? { engineClock: opts.engineClock } : {}),
    ...(opts.pairingPollMs ? { pairingPollMs: opts.pairingPollMs } : {}),
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    ...(opts.memory ? { memory: opts.memory } : {}),
    ...(opts.collectGarbage ? { collectGarbage: opts.collectGarbage } : {}),
    platforms: ({ store }) => [{ adapter: web, routes: webRoutes(web, { auth: requireAdminToken(store, config.admin_token) }) }, ...(opts.extra?.({ config }) ?? [])],
  });
  const api: Harness['api'] = async (path, init = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
    const res = await fetch(`${gateway.url}${path}`, { method: init.method ?? (init.body ? 'POST' : 'GET'), headers, body: init.body ? JSON.stringify(init.body) : undefined });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* plain text (metrics) */
    }
    return { status: res.status, body };
  };
  const waitFor: Harness['waitFor'] = async (what, probe, timeoutMs = 10_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined && v !== false) return v as never;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    home,
    config,
    gateway,
    web,
    model,
    api,
    say: async (conversation, text) => {
      const r = await api(`/api/web/conversations/${conversation}/messages`, { body: { text } });
      if (r.status !== 202) throw new Error(`send failed: ${r.status} ${JSON.stringify(r.body)}`);
    },
    botMessages: (conversation) => web.messages(conversation).filter((m) => m.author === 'bot'),
    waitFor,
    close: async () => {
      await gateway.shutdown('test over');
      if (!opts.model) await model.stop();
      if (!opts.home) await rm(home, { recursive: true, force: true });
    },
  };
}
