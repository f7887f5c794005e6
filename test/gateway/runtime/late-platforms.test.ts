/**
 * Adapters start in two waves: Telegram (against its fake) polls before a deferred platform has even
 * loaded, /readyz says 503 with that platform connecting until it has started, and a Slack that starts
 * late in HTTP mode still gets its signed events on the shared listener. buildPlatforms defers the
 * platforms with heavy SDKs (Slack, Discord) and builds the web playground and Telegram at once.
 */
import pino from 'pino';
import type { AdapterBinding } from '../../../src/adapters/contract/binding';
import { createSlackBinding } from '../../../src/adapters/slack';
import { createTelegramBinding } from '../../../src/adapters/telegram';
import { loadGatewayConfig } from '../../../src/gateway/config';
import { buildPlatforms } from '../../../src/gateway/platforms';
import type { DeferredBinding } from '../../../src/gateway/runtime/late-platforms';
import type { GatewayStore } from '../../../src/gateway/store';
import { FakeSlackServer } from '../../fakes/slack-server';
import { FakeTelegramServer } from '../../fakes/telegram-server';
import { startHarness, type Harness } from './harness';

const ALICE = 'U0000ALICE';

let h: Harness | undefined;
const fakes: { stop(): Promise<unknown> }[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

/** The listener's URL from the gateway's own log: it listens before any adapter starts. */
function listeningUrl(lines: string[]): string {
  const line = lines.map((l) => JSON.parse(l) as { msg?: string; url?: string }).find((l) => l.msg === 'gateway listening');
  if (!line?.url) throw new Error('the gateway has not logged its URL');
  return line.url;
}

test('Telegram polls before a deferred platform loads; /readyz is 503 until it started; late Slack HTTP events arrive', async () => {
  const tg = new FakeTelegramServer({ rateLimits: false });
  const slack = new FakeSlackServer({ delivery: 'http' });
  fakes.push(tg, slack);
  const t = await tg.start();
  const s = await slack.start();
  const logLines: string[] = [];
  let duringLoad: { polling: boolean; ready: number; body: any; events: number } | undefined;
  h = await startHarness({
    logLines,
    env: {
      TELEGRAM_BOT_TOKEN: t.token, TELEGRAM_API_ROOT: t.apiRoot,
      SLACK_BOT_TOKEN: s.botToken, SLACK_API_URL: s.apiUrl, SLACK_SIGNING_SECRET: s.signingSecret,
      PENGUIN_DM_POLICY: 'allowlist', PENGUIN_ALLOW_USERS: `slack:${ALICE}`,
    },
    extra: ({ config }) => [
      createTelegramBinding(config.telegram),
      {
        platform: 'slack',
        // A load that cannot finish before Telegram polls: were Slack loaded first, this would time out.
        load: async (): Promise<AdapterBinding> => {
          await tg.waitFor(() => tg.isPolling, 5000, 'a held getUpdates');
          const url = listeningUrl(logLines);
          const ready = await fetch(`${url}/readyz`);
          const events = await fetch(`${url}/slack/events`, { method: 'POST', body: '{}' });
          duringLoad = { polling: tg.isPolling, ready: ready.status, body: await ready.json(), events: events.status };
          return createSlackBinding(config.slack);
        },
      },
    ],
  });

  expect(duringLoad).toMatchObject({ polling: true, ready: 503, events: 503 });
  expect(duringLoad!.body.adapters).toEqual(expect.arrayContaining([
    expect.objectContaining({ name: 'telegram', state: 'connected' }),
    expect.objectContaining({ name: 'slack', state: 'connecting' }),
  ]));
  const ready = await h.api('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.adapters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'slack', state: 'connected' })]));

  slack.setRequestUrl(`${h.gateway.url}/slack/events`);
  const sent = slack.dmMessage(ALICE, 'hello from a late Slack');
  await h.waitFor('the Slack DM to reach the model', () => h!.model.requests.some((r) => JSON.stringify(r.body?.messages ?? []).includes('hello from a late Slack')));
  expect(sent.channel).toMatch(/^D/);
});

test('a deferred platform that fails to load is reported failed; the others run', async () => {
  h = await startHarness({
    extra: () => [{ platform: 'discord', load: () => Promise.reject(new Error('cannot load discord.js')) } satisfies DeferredBinding],
  });
  const r = await h.api('/readyz');
  expect(r.status).toBe(503);
  expect(r.body.adapters).toEqual(expect.arrayContaining([
    expect.objectContaining({ name: 'web', state: 'connected' }),
    expect.objectContaining({ name: 'discord', state: 'failed', detail: 'cannot load discord.js' }),
  ]));
});

test('buildPlatforms builds the web playground and Telegram at once and defers Slack and Discord', () => {
  const loaded = loadGatewayConfig({
    argv: [],
    cwd: '/',
    env: {
      PENGUIN_HOME: '/nonexistent', OPENAI_API_KEY: 'sk-test', PENGUIN_MODEL: 'fake-model',
      TELEGRAM_BOT_TOKEN: '123456789:FAKE-telegram-token',
      SLACK_BOT_TOKEN: 'xoxb-fake', SLACK_SIGNING_SECRET: 'fake-signing-secret',
      DISCORD_BOT_TOKEN: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.fake.token',
    },
  });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const entries = buildPlatforms(loaded.config, { store: {} as GatewayStore, logger: pino({ level: 'silent' }), auth: (_q, _r, next) => next() });
  const shape = entries.map((e) => ('load' in e ? `${e.platform} (deferred)` : e.adapter.platform));
  expect(shape).toEqual(['web', 'telegram', 'slack (deferred)', 'discord (deferred)']);
});
