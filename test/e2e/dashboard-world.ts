/**
 * The dashboard's end-to-end world: the real gateway process (built dist, no chat platform, only the web
 * playground) on a temp PENGUIN_HOME with the fake OpenAI-compatible model, and one headless Debian Chromium
 * driven by playwright-core, shared by every test of a file. `prepare(home)` writes into PENGUIN_HOME before the
 * gateway starts (schedule files); `env` adds to or overrides the gateway's environment. `chromiumPath()` says
 * whether the browser is here (a CI run must have it: .ci/run installs the package). `close()` ends it all.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { stringify } from 'yaml';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';

export const DASHBOARD_TOKEN = 'e2e-dashboard-token-0123456789abcdef';
const MODEL_KEY = 'sk-e2e-dashboard';
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export function chromiumPath(): string | undefined {
  return existsSync(CHROMIUM) ? CHROMIUM : undefined;
}

export interface DashboardWorld {
  dir: string;
  home: string;
  model: FakeOpenAIServer;
  gw: GatewayProcess;
  browser: Browser;
  /** An admin API call with the bearer token. */
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function openDashboardWorld(o: { prepare?: (home: string) => Promise<void>; env?: Record<string, string> } = {}): Promise<DashboardWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-dash-'));
  const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Dashboard test' }) });
  let browser: Browser | undefined;
  try {
    await model.start();
    const configFile = join(dir, 'gateway.yaml');
    await writeFile(configFile, stringify({ logging: { level: 'info' }, shutdown: { grace_ms: 3000 }, web: { streaming: { dm_edit_interval_ms: 100, group_edit_interval_ms: 100, typing_renew_ms: 4000 } } }));
    const home = join(dir, 'data');
    await o.prepare?.(home);
    const gw = await spawnGateway({
      dir,
      env: {
        PENGUIN_HOME: home, PENGUIN_GATEWAY_PORT: '0', PENGUIN_GATEWAY_CONFIG: configFile, PENGUIN_ADMIN_TOKEN: DASHBOARD_TOKEN,
        OPENAI_API_KEY: MODEL_KEY, OPENAI_BASE_URL: model.baseUrl, PENGUIN_MODEL: 'fake-model',
        ...o.env,
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const b = browser;
    return {
      dir, home, model, gw, browser: b,
      async admin(path, init = {}) {
        const res = await fetch(`${gw.url}${path}`, {
          method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
          headers: { authorization: `Bearer ${DASHBOARD_TOKEN}`, 'content-type': 'application/json' },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        const text = await res.text();
        return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
      },
      async close() {
        await b.close().catch(() => undefined);
        await killAllGateways();
        await model.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await killAllGateways();
    await model.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
