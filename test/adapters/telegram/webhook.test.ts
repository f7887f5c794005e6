/**
 * Webhook mode against the fake Bot API: start sets the webhook with the secret token (and never polls),
 * updates POSTed by Telegram reach the handler after a fast 200, requests without the right
 * X-Telegram-Bot-Api-Secret-Token get 401, malformed bodies 400, and nothing is taken before start or
 * after stop (503, so Telegram redelivers). The secret comparison is checked on its own.
 */
import type { Express } from 'express';
import { createTelegramBinding } from '../../../src/adapters/telegram';
import { secretMatches, TELEGRAM_WEBHOOK_PATH } from '../../../src/adapters/telegram/webhook';
import { RecordingHandler, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const SECRET = 'wh_Secret-123';

/** A listener first (the webhook URL needs its port), then the binding whose route is mounted on it. */
const STREAMING = { dm_edit_interval_ms: 1000, group_edit_interval_ms: 3000, typing_renew_ms: 4000 };

async function webhookSetup() {
  h = await startHarness({ rateLimits: false });
  let app!: Express;
  const base = await h.listen((a) => (app = a));
  const url = `${base}${TELEGRAM_WEBHOOK_PATH}`;
  const binding = createTelegramBinding(
    { bot_token: h.server.token, api_root: h.server.apiRoot, mode: 'webhook', webhook_url: url, webhook_secret: SECRET, draft_streaming: true, streaming: STREAMING },
    { clock: h.clock },
  );
  h.track(binding.adapter);
  expect(binding.routes).toBeDefined();
  binding.routes!(app);
  return { binding, url };
}

const post = (url: string, body: unknown, secret?: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(secret === undefined ? {} : { 'X-Telegram-Bot-Api-Secret-Token': secret }) }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('Telegram adapter in webhook mode', () => {
  it('sets the webhook with its secret at start and receives updates through the route', async () => {
    const { binding, url } = await webhookSetup();
    const handler = new RecordingHandler();
    await binding.adapter.start(handler);

    const set = h.server.callsTo('setWebhook');
    expect(set).toHaveLength(1);
    expect(set[0].params).toMatchObject({ url, secret_token: SECRET });
    expect(h.server.myCommands().map((c) => c.command)).toEqual(['new', 'stop', 'mode', 'status', 'schedules', 'help']);

    const u = h.server.injectMessage({ chat: 42, text: 'via webhook' });
    await handler.waitFor(() => handler.messages.length === 1, 'the webhook message');
    expect(handler.messages[0]).toMatchObject({ text: 'via webhook', eventId: String(u.update_id), isDM: true });
    await h.server.waitFor(() => h.server.deliveries.find((d) => d.update_id === u.update_id && d.delivered), 5000, 'delivery');
    expect(h.server.deliveries.filter((d) => d.update_id === u.update_id).map((d) => d.status)).toEqual([200]);
    expect(h.server.callCount('getUpdates')).toBe(0);

    await binding.adapter.stop();
    const after = await post(url, { update_id: 99, message: { message_id: 1, date: 1, chat: { id: 42, type: 'private' }, from: { id: 42, is_bot: false, first_name: 'A' }, text: 'late' } }, SECRET);
    expect(after.status).toBe(503);
    expect(handler.messages).toHaveLength(1);
  });

  it('answers 401 to a wrong or missing secret, 503 before start, 400 to a malformed update', async () => {
    const { binding, url } = await webhookSetup();
    const update = { update_id: 7, message: { message_id: 1, date: 1, chat: { id: 42, type: 'private' }, from: { id: 42, is_bot: false, first_name: 'A' }, text: 'x' } };
    expect((await post(url, update, 'wrong')).status).toBe(401);
    expect((await post(url, update)).status).toBe(401);
    expect((await post(url, update, SECRET)).status).toBe(503);

    const handler = new RecordingHandler();
    await binding.adapter.start(handler);
    const wrong = await post(url, update, `${SECRET}x`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 'unauthorized', message: 'missing or wrong X-Telegram-Bot-Api-Secret-Token' } });
    expect((await post(url, { message: {} }, SECRET)).status).toBe(400);
    expect((await post(url, '{not json', SECRET)).status).toBe(400);
    expect(handler.messages).toEqual([]);

    const ok = await post(url, update, SECRET);
    expect(ok.status).toBe(200);
    await handler.waitFor(() => handler.messages.length === 1, 'the accepted update');
    expect(handler.messages[0]).toMatchObject({ eventId: '7', text: 'x' });
  });

  it('has no route in polling mode', () => {
    const b = createTelegramBinding({ bot_token: '1:x', api_root: 'http://127.0.0.1:9', mode: 'polling', draft_streaming: false, streaming: STREAMING });
    expect(b.routes).toBeUndefined();
    expect(b.adapter.platform).toBe('telegram');
  });
});

describe('secretMatches', () => {
  it('accepts only the exact secret', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abc', 'abd')).toBe(false);
    expect(secretMatches('abc', 'abcd')).toBe(false);
    expect(secretMatches('abc', '')).toBe(false);
    expect(secretMatches('abc', undefined)).toBe(false);
    expect(secretMatches('abc', ['abc'])).toBe(false);
  });
});
