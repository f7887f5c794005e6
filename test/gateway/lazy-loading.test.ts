/**
 * Load only what is configured: the built gateway started with no platform credentials and no MCP server
 * never requires a chat platform SDK, the MCP SDK or the model SDK; the model SDK arrives with the first
 * model request, and a configured platform (Telegram, against its fake) brings its own SDK and no other. What was loaded is read from `require.cache` by a `--require` hook when the process
 * exits (test/fixtures/hooks/record-packages.js), so nothing here depends on timing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertGatewayBuilt, killAllGateways, spawnGateway, type GatewayProcess } from '../e2e/gateway-process';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { FakeTelegramServer } from '../fakes/telegram-server';

const TOKEN = 'lazy-test-token-0123456789';
const HOOK = resolve(__dirname, '../fixtures/hooks/record-packages.js');
const PLATFORM_SDKS = ['grammy', '@slack/bolt', '@slack/web-api', 'discord.js', '@discordjs/ws'];
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

let home: string;
let model: FakeOpenAIServer;

beforeAll(() => assertGatewayBuilt());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'pg-lazy-'));
  model = new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'Title' }) });
  await model.start();
});
afterEach(async () => {
  await killAllGateways();
  await model.stop();
  await rm(home, { recursive: true, force: true });
});

function start(extra: Record<string, string> = {}): Promise<GatewayProcess> {
  return spawnGateway({
    dir: home,
    nodeArgs: ['--require', HOOK],
    env: {
      PENGUIN_HOME: join(home, 'data'),
      PENGUIN_GATEWAY_PORT: '0',
      PENGUIN_ADMIN_TOKEN: TOKEN,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.baseUrl,
      PENGUIN_MODEL: 'fake-model',
      PG_LOADED_PACKAGES_OUT: join(home, 'loaded.txt'),
      ...extra,
    },
  });
}

async function loadedAfterStop(gw: GatewayProcess): Promise<string[]> {
  expect(await gw.stop()).toBe(0);
  return (await readFile(join(home, 'loaded.txt'), 'utf8')).split('\n').filter(Boolean);
}

describe('a gateway with only the web playground', () => {
  it('loads no chat platform SDK, no MCP SDK and no model SDK at start', async () => {
    const gw = await start();
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    const loaded = await loadedAfterStop(gw);
    expect(loaded).toEqual(expect.arrayContaining(['express', 'better-sqlite3']));
    for (const sdk of [...PLATFORM_SDKS, '@modelcontextprotocol/sdk', 'openai']) expect(loaded).not.toContain(sdk);
  });

  it('loads the model SDK with its first model request, and still no platform or MCP SDK', async () => {
    model.enqueue(turn({ text: 'Hello there.' }));
    const gw = await start();
    await fetch(`${gw.url}/api/web/conversations/lazy/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'hi' }) });
    for (let i = 0; i < 400 && model.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(model.requests.length).toBeGreaterThan(0);
    const loaded = await loadedAfterStop(gw);
    expect(loaded).toContain('openai');
    for (const sdk of [...PLATFORM_SDKS, '@modelcontextprotocol/sdk']) expect(loaded).not.toContain(sdk);
  });
});

describe('a gateway with Telegram configured', () => {
  it('loads grammY and neither Bolt nor discord.js', async () => {
    const tg = new FakeTelegramServer();
    const { apiRoot, token } = await tg.start();
    try {
      const gw = await start({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: apiRoot });
      for (let i = 0; i < 400 && (await fetch(`${gw.url}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 25));
      const loaded = await loadedAfterStop(gw);
      expect(loaded).toContain('grammy');
      for (const sdk of ['@slack/bolt', '@slack/web-api', 'discord.js', '@discordjs/ws', '@modelcontextprotocol/sdk', 'openai']) expect(loaded).not.toContain(sdk);
    } finally {
      await tg.stop();
    }
  });
});
