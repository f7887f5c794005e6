/**
 * The real gateway process (`penguin-gateway start`, built CLI) with no platform credentials: it serves
 * /healthz, /readyz and the admin API on a fresh PENGUIN_HOME, and on SIGTERM mid-Task it aborts the Task
 * with "gateway shutting down", finalises the live reply, flushes the trace and exits 0. It loads only what
 * is configured: no chat platform SDK, MCP SDK, model SDK or PostgreSQL driver (on SQLite) at start, the model SDK with the first model
 * request, and a configured platform (Telegram, against its fake) brings its own SDK and no other; Slack and
 * Discord (against theirs) call their APIs without Node's fetch implementation. What was
 * loaded is read from `require.cache` by a `--require` hook when the process exits
 * (test/fixtures/hooks/record-packages.js), so nothing depends on timing; the gateway's own code and the
 * packages bundled with it come from one bundle file, each SDK from its vendor bundle (scripts/build-server.mjs).
 * A start under --trace-opt optimizes no function (cli.ts TIER_UP_FLAGS).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readAllTraces, tracesDir } from '../../src/core/trace';
import { openSqliteStore } from '../../src/gateway/store';
import { assertGatewayBuilt, killAllGateways, spawnGateway, type GatewayProcess } from '../e2e/gateway-process';
import { FakeOpenAIServer, finishChunk, stream, textChunks, turn, usageChunk } from '../fakes/openai-server';
import { FakeDiscordServer } from '../fakes/discord-server';
import { FakeSlackServer } from '../fakes/slack-server';
import { FakeTelegramServer } from '../fakes/telegram-server';

const TOKEN = 'process-test-token-0123456789';

let home: string;
let model: FakeOpenAIServer;

beforeAll(() => assertGatewayBuilt());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'pg-proc-'));
  model = new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'Title' }) });
  await model.start();
});
afterEach(async () => {
  await killAllGateways();
  await model.stop();
  await rm(home, { recursive: true, force: true });
});

function start(o: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<GatewayProcess> {
  return spawnGateway({
    dir: home,
    ...(o.nodeArgs ? { nodeArgs: o.nodeArgs } : {}),
    env: {
      PENGUIN_HOME: join(home, 'data'),
      PENGUIN_GATEWAY_PORT: '0',
      PENGUIN_ADMIN_TOKEN: TOKEN,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.baseUrl,
      PENGUIN_MODEL: 'fake-model',
      ...o.env,
    },
  });
}

const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('the gateway process', () => {
  it('serves health, readiness and the admin API with no chat platform configured', async () => {
    const gw = await start();
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { adapters: { name: string; state: string }[] };
    expect(body.adapters).toEqual(expect.arrayContaining([{ name: 'web', state: 'connected' }, expect.objectContaining({ name: 'telegram', state: 'disabled' })]));
    expect((await fetch(`${gw.url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${gw.url}/api/sessions`, { headers: auth })).status).toBe(200);
    expect(await gw.stop()).toBe(0);
    expect(gw.output()).not.toContain(TOKEN);
  });

  it('a new process on the same PENGUIN_HOME resumes the conversation\'s session from its trace', async () => {
    const say = async (url: string, text: string, expect: string) => {
      await fetch(`${url}/api/web/conversations/r1/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ text }) });
      for (let i = 0; i < 400; i++) {
        const r = (await (await fetch(`${url}/api/web/conversations/r1/messages`, { headers: auth })).json()) as { messages: { author: string; text: string; final: boolean }[] };
        if (r.messages.some((m) => m.author === 'bot' && m.final && m.text.includes(expect))) return;
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error(`no reply containing ${expect}`);
    };
    model.enqueue(turn({ text: 'Noted: the code word is heron.' }));
    let gw = await start();
    await say(gw.url, 'the code word is heron', 'heron');
    expect(await gw.stop()).toBe(0);

    model.enqueue(turn({ text: 'It was heron.' }));
    gw = await start();
    await say(gw.url, 'what was the code word?', 'It was heron.');
    expect(await gw.stop()).toBe(0);
    const last = model.requests.filter((r) => r.body.tools?.length).at(-1)!.body.messages;
    expect(last.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(last)).toContain('the code word is heron');
    const store = openSqliteStore(join(home, 'data', 'gateway.db'));
    try {
      expect(await store.listSessions({})).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('on SIGTERM mid-Task aborts it, finalises the live reply, flushes the trace, exits 0, and the next start offers Continue', async () => {
    const gw = await start();
    const long = 'word '.repeat(200);
    model.enqueue(stream([...textChunks(long, { size: 10 }), finishChunk('stop'), usageChunk({ prompt_tokens: 5, completion_tokens: 50 })], { chunkDelayMs: 50 }));
    const sent = await fetch(`${gw.url}/api/web/conversations/s1/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'write a lot' }) });
    expect(sent.status).toBe(202);
    // Wait for the live reply to exist, then stop the process mid-stream.
    for (let i = 0; i < 200; i++) {
      const r = (await (await fetch(`${gw.url}/api/web/conversations/s1/messages`, { headers: auth })).json()) as { messages: { author: string; text: string }[] };
      if (r.messages.some((m) => m.author === 'bot' && m.text.includes('word'))) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    const t0 = Date.now();
    expect(await gw.stop()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);

    const store = openSqliteStore(join(home, 'data', 'gateway.db'));
    try {
      const [session] = await store.listSessions({});
      expect(session.status).toBe('idle');
      // The reply was finalised on screen but stays open in the ledger: the Task did not finish its work.
      const deliveries = await store.listDeliveries({ session_id: session.session_id });
      expect(deliveries.length).toBeGreaterThan(0);
      expect(deliveries.every((d) => d.state === 'sent')).toBe(true);
      const traces = await readAllTraces(tracesDir(join(home, 'data'), 'default_project', 'default_agent'), session.session_id);
      const last = traces.files.at(-1)!.messages.at(-1)!;
      expect(last.type === 'event_msg' && last.payload).toMatchObject({ type: 'abort', reason: 'gateway shutting down' });
    } finally {
      await store.close();
    }

    model.enqueue(turn({ text: 'Picking up where I stopped.' }));
    const again = await start();
    const fetchMsgs = async () => ((await (await fetch(`${again.url}/api/web/conversations/s1/messages`, { headers: auth })).json()) as { messages: { id: string; author: string; text: string; final: boolean; buttons: { label: string; payload: string }[] }[] }).messages;
    let offer: { id: string; buttons: { label: string; payload: string }[] } | undefined;
    for (let i = 0; i < 200 && !offer; i++) {
      offer = (await fetchMsgs()).find((m) => m.buttons.some((b) => b.label === 'Continue'));
      if (!offer) await new Promise((res) => setTimeout(res, 25));
    }
    expect(offer).toBeDefined();
    const click = await fetch(`${again.url}/api/web/conversations/s1/actions`, { method: 'POST', headers: auth, body: JSON.stringify({ message_id: offer!.id, payload: offer!.buttons[0].payload }) });
    expect(click.status).toBe(200);
    let continued = false;
    for (let i = 0; i < 200 && !continued; i++) {
      continued = (await fetchMsgs()).some((m) => m.author === 'bot' && m.final && m.text.includes('Picking up where I stopped.'));
      if (!continued) await new Promise((res) => setTimeout(res, 25));
    }
    expect(continued).toBe(true);
    expect(await again.stop()).toBe(0);
  });
});

const HOOK = resolve(__dirname, '../fixtures/hooks/record-packages.js');
const PLATFORM_SDKS = ['grammy', '@slack/bolt', '@slack/web-api', 'discord.js', '@discordjs/ws'];
const GATEWAY_BUNDLE = 'dist/src/gateway/cli.bundle.js';
const OTEL_BUNDLE = 'dist/src/vendor/gateway.@opentelemetry-api.js';
const VENDOR = { express: 'dist/src/vendor/express.js', grammy: 'dist/src/vendor/grammy.js', slack: 'dist/src/vendor/slack.js', discord: 'dist/src/vendor/discord.js', openai: 'dist/src/vendor/openai.js' };

/**
 * The gateway with the package-recording hook; `loaded()` stops it and lists what it loaded: npm packages
 * required from node_modules by name, and the gateway's own files (the bundles among them) as dist/… paths.
 */
async function recorded(env: Record<string, string> = {}): Promise<{ gw: GatewayProcess; loaded(): Promise<{ packages: string[]; own: string[]; builtins: string[]; bundles: string[] }> }> {
  const out = join(home, 'loaded.txt');
  const ownOut = join(home, 'loaded-own.txt');
  const builtinsOut = join(home, 'loaded-builtins.txt');
  const bundlesOut = join(home, 'bundle-loads.txt');
  const gw = await start({ nodeArgs: ['--require', HOOK], env: { PG_LOADED_PACKAGES_OUT: out, PG_LOADED_OWN_OUT: ownOut, PG_LOADED_BUILTINS_OUT: builtinsOut, PG_BUNDLE_LOADS_OUT: bundlesOut, ...env } });
  const lines = async (f: string) => (await readFile(f, 'utf8')).split('\n').filter(Boolean);
  const relative = (f: string) => f.slice(f.indexOf('/dist/src/') + 1);
  return {
    gw,
    loaded: async () => {
      expect(await gw.stop()).toBe(0);
      const own = (await lines(ownOut)).filter((f) => f.includes('/dist/src/')).map(relative);
      return { packages: await lines(out), own, builtins: await lines(builtinsOut), bundles: (await lines(bundlesOut)).map(relative) };
    },
  };
}

describe('load only what is configured', () => {
  it('with only the web playground: the gateway bundle, SQLite, and no SDK of a platform, the model, MCP or PostgreSQL', async () => {
    const r = await recorded();
    expect((await fetch(`${r.gw.url}/readyz`)).status).toBe(200);
    const { packages, own, builtins } = await r.loaded();
    expect(packages).toContain('better-sqlite3');
    for (const sdk of [...PLATFORM_SDKS, '@modelcontextprotocol/sdk', 'openai', 'pg']) expect(packages).not.toContain(sdk);
    // zod and the gateway's own modules come from the one bundle, express from its own (Bolt shares it), not module by module
    for (const bundled of ['express', 'zod', 'yaml', 'pino']) expect(packages).not.toContain(bundled);
    expect(own).toEqual(['dist/src/gateway/bundle-loader.js', GATEWAY_BUNDLE, 'dist/src/gateway/cli.js', VENDOR.express]);
    // Nothing at start speaks TLS: prom-client's Pushgateway and the model's https transport stay unloaded.
    expect(builtins).toContain('http');
    for (const tls of ['tls', 'https']) expect(builtins).not.toContain(tls);
  });

  it('the process metrics are collected without the OpenTelemetry API, which only exemplars would use', async () => {
    const r = await recorded();
    const metrics = await fetch(`${r.gw.url}/metrics`, { headers: auth });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/process_cpu_seconds_total \d/);
    const { packages, own } = await r.loaded();
    expect(own).not.toContain(OTEL_BUNDLE);
    expect(packages).not.toContain('@opentelemetry/api');
    // The main bundle holds a stand-in, not the package, and this is what the stand-in loads at first use
    // (scripts/build-server.mjs, LAZY).
    expect(await readFile(resolve(__dirname, '../..', GATEWAY_BUNDLE), 'utf8')).not.toContain('"node_modules/@opentelemetry/api/');
    const api = (require(resolve(__dirname, '../../dist/src/gateway/bundle-loader.js')) as { loadBundle(f: string): { trace: { getSpan: unknown } } }).loadBundle(resolve(__dirname, '../..', OTEL_BUNDLE));
    expect(typeof api.trace.getSpan).toBe('function');
  });

  it('the model SDK comes with the first model request, still no platform or MCP SDK', async () => {
    model.enqueue(turn({ text: 'Hello there.' }));
    const r = await recorded();
    await fetch(`${r.gw.url}/api/web/conversations/lazy/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'hi' }) });
    for (let i = 0; i < 400 && model.requests.length === 0; i++) await new Promise((res) => setTimeout(res, 25));
    expect(model.requests.length).toBeGreaterThan(0);
    const { packages, own, bundles } = await r.loaded();
    expect(own).toContain(VENDOR.openai);
    // Both compiled from the code cache the build made (loaded before and after the start set its flags).
    expect(bundles).toEqual([`${GATEWAY_BUNDLE} used`, `${VENDOR.express} used`, `${VENDOR.openai} used`]);
    for (const v of [VENDOR.grammy, VENDOR.slack, VENDOR.discord]) expect(own).not.toContain(v);
    for (const sdk of [...PLATFORM_SDKS, '@modelcontextprotocol/sdk', 'openai']) expect(packages).not.toContain(sdk);
  });

  it('with Telegram configured: grammY, and neither Bolt nor discord.js', async () => {
    const tg = new FakeTelegramServer();
    const { apiRoot, token } = await tg.start();
    try {
      const r = await recorded({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: apiRoot });
      for (let i = 0; i < 400 && (await fetch(`${r.gw.url}/readyz`)).status !== 200; i++) await new Promise((res) => setTimeout(res, 25));
      const { packages, own, bundles } = await r.loaded();
      expect(own).toContain(VENDOR.grammy);
      expect(bundles).toEqual([`${GATEWAY_BUNDLE} used`, `${VENDOR.express} used`, `${VENDOR.grammy} used`]);
      for (const v of [VENDOR.slack, VENDOR.discord, VENDOR.openai]) expect(own).not.toContain(v);
      for (const sdk of [...PLATFORM_SDKS, '@modelcontextprotocol/sdk', 'openai']) expect(packages).not.toContain(sdk);
    } finally {
      await tg.stop();
    }
  });

  it('with Slack and Discord configured: their vendor bundles, and neither Node\'s fetch nor an undici bundle', async () => {
    const slack = new FakeSlackServer({ delivery: 'http' });
    const discord = new FakeDiscordServer();
    const s = await slack.start();
    const d = await discord.start();
    try {
      const r = await recorded({
        SLACK_BOT_TOKEN: s.botToken, SLACK_SIGNING_SECRET: s.signingSecret, SLACK_API_URL: s.apiUrl,
        DISCORD_BOT_TOKEN: d.token, DISCORD_API_URL: d.apiRoot,
      });
      let ready: { adapters?: { name: string; state: string }[] } = {};
      for (let i = 0; i < 400; i++) {
        const res = await fetch(`${r.gw.url}/readyz`);
        ready = (await res.json()) as typeof ready;
        if (res.status === 200) break;
        await new Promise((res) => setTimeout(res, 25));
      }
      // Both started, so both made their API calls at start (auth.test; the gateway URL, the application).
      expect(ready.adapters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'slack', state: 'connected' }), expect.objectContaining({ name: 'discord', state: 'connected' })]));
      const { own, builtins } = await r.loaded();
      expect(own).toEqual(expect.arrayContaining([VENDOR.slack, VENDOR.discord]));
      expect(own.filter((f) => f.includes('undici'))).toEqual([]);
      expect(builtins.filter((m) => m.includes('undici'))).toEqual([]);
    } finally {
      await slack.stop();
      await discord.stop();
    }
  });
});

describe('V8 tier-up (cli.ts TIER_UP_FLAGS)', () => {
  it('a start optimizes no function: one-off start-up code stays off TurboFan, which would hold ~5 MB for good', async () => {
    // --trace-opt prints a `[marking …]` line for each function V8 queues for TurboFan (it also makes V8 refuse
    // the bundles' code caches, which changes nothing here but a warning). Without the flags a start marks ~20.
    const gw = await start({ nodeArgs: ['--trace-opt'] });
    // The start-up summary follows the agent warm-up: system_config.yaml parsed and its schemas built.
    for (let i = 0; i < 400 && !gw.output().includes('dashboard at'); i++) await new Promise((res) => setTimeout(res, 25));
    expect(gw.output()).toContain('dashboard at');
    expect(await gw.stop()).toBe(0);
    const marked = [...gw.output().matchAll(/\[marking \S+ <JSFunction ([^\s(>]*)/g)].map((m) => m[1] || '(anonymous)');
    expect(marked).toEqual([]);
  });
});
