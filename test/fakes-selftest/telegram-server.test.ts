/**
 * The fake Telegram Bot API server driven by the real grammY package: long polling with offset
 * confirmation and clean stop, one poller per token (409), HTML send/edit and their errors as
 * GrammyError, flood control (429 + retry_after), callback queries, webhooks with the secret header
 * and redelivery, and a fan-out over many chats.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bot, GrammyError, InlineKeyboard, webhookCallback } from 'grammy';
import { ManualClock } from '../fakes/telegram-clock';
import { grammyError, startHarness, type Harness } from './telegram-harness';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

describe('long polling', () => {
  it('delivers injected messages in order, confirms them by offset and stops cleanly', async () => {
    h = await startHarness({ rateLimits: false });
    const bot = h.bot();
    const seen: Array<{ text: string; chat: number; from: number; type: string }> = [];
    bot.on('message:text', (ctx) => {
      seen.push({ text: ctx.msg.text, chat: ctx.chat.id, from: ctx.from.id, type: ctx.chat.type });
    });
    const first = h.server.injectMessage({ chat: 42, text: 'one' });
    const running = bot.start({ timeout: 1 });
    await h.server.waitFor(() => seen.length === 1);
    h.server.injectMessage({ chat: 42, text: 'two' });
    const last = h.server.injectMessage({ chat: { id: -555, type: 'group', title: 'Team' }, from: 7, text: 'three' });
    await h.server.waitFor(() => seen.length === 3);
    await bot.stop();
    await running;

    expect(seen).toEqual([
      { text: 'one', chat: 42, from: 42, type: 'private' },
      { text: 'two', chat: 42, from: 42, type: 'private' },
      { text: 'three', chat: -555, from: 7, type: 'group' },
    ]);
    expect(last.update_id).toBe(first.update_id + 2);
    expect(h.server.confirmedUpdateId).toBe(last.update_id);
    expect(h.server.pendingUpdateCount()).toBe(0);
    expect(h.server.isPolling).toBe(false);
    const offsets = h.server.callsTo('getUpdates').filter((c) => !c.aborted).map((c) => c.params.offset);
    expect(offsets).toContain(last.update_id + 1);
    expect((await h.raw('getUpdates')).result).toEqual([]);
  });

  it('keeps updates until an offset confirms them, over GET, form and JSON', async () => {
    h = await startHarness();
    const [a, b, c] = ['a', 'b', 'c'].map((text) => h.server.injectMessage({ chat: 1, text }));
    const ids = (r: { result?: Array<{ update_id: number }> }) => r.result!.map((u) => u.update_id);

    expect(ids(await h.raw('getUpdates', {}, 'query'))).toEqual([a.update_id, b.update_id, c.update_id]);
    expect(ids(await h.raw('getUpdates', {}, 'query'))).toEqual([a.update_id, b.update_id, c.update_id]);
    expect(ids(await h.raw('getUpdates', { offset: b.update_id, limit: 1 }, 'form'))).toEqual([b.update_id]);
    expect(ids(await h.raw('getUpdates', {}, 'json'))).toEqual([b.update_id, c.update_id]);
    expect(ids(await h.raw('getUpdates', { offset: c.update_id + 1 }, 'json'))).toEqual([]);
    expect(h.server.pendingUpdateCount()).toBe(0);

    h.server.injectMessage({ chat: 1, text: 'd' });
    const e = h.server.injectMessage({ chat: 1, text: 'e' });
    expect(ids(await h.raw('getUpdates', { offset: -1 }))).toEqual([e.update_id]);
  });

  it('holds a long poll until an update arrives, and answers [] when the timeout passes', async () => {
    h = await startHarness();
    const held = h.raw('getUpdates', { timeout: 5 });
    await h.server.waitFor(() => h.server.isPolling);
    const u = h.server.injectMessage({ chat: 9, text: 'wake up' });
    const reply = await held;
    expect(reply.result.map((x: { update_id: number }) => x.update_id)).toEqual([u.update_id]);
    expect(reply.result[0].message.text).toBe('wake up');

    const empty = await h.raw('getUpdates', { offset: u.update_id + 1, timeout: 1 });
    expect(empty).toMatchObject({ status: 200, ok: true, result: [] });
  });

  it('answers a second concurrent poller with 409 Conflict while the first keeps working', async () => {
    h = await startHarness({ pollConflict: 'reject-newcomer' });
    const first = h.bot();
    const got: string[] = [];
    first.on('message:text', (ctx) => {
      got.push(ctx.msg.text);
    });
    const running = first.start({ timeout: 2 });
    await h.server.waitFor(() => h.server.isPolling);

    const second = h.bot();
    const err = await grammyError(second.start({ timeout: 2 }));
    expect(err.error_code).toBe(409);
    expect(err.description).toBe('Conflict: terminated by other getUpdates request; make sure that only one bot instance is running');

    h.server.injectMessage({ chat: 5, text: 'still mine' });
    await h.server.waitFor(() => got.length === 1);
    expect(got).toEqual(['still mine']);
    await first.stop();
    await running;
  });

  it("can instead end the held poll with 409, as Telegram's server does", async () => {
    h = await startHarness({ pollConflict: 'terminate-pending' });
    const first = h.bot();
    const firstRun = first.start({ timeout: 2 });
    await h.server.waitFor(() => h.server.isPolling);
    const second = h.bot();
    const got: string[] = [];
    second.on('message:text', (ctx) => {
      got.push(ctx.msg.text);
    });
    const secondRun = second.start({ timeout: 2 });
    const err = await grammyError(firstRun);
    expect(err.error_code).toBe(409);
    h.server.injectMessage({ chat: 5, text: 'for the newcomer' });
    await h.server.waitFor(() => got.length === 1);
    await second.stop();
    await secondRun;
  });
});

describe('sending and editing', () => {
  it('renders HTML into text + entities and records edits as a user sees them', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    const sent = await bot.api.sendMessage(42, '<b>Hello</b> <i>world</i> &amp; more', { parse_mode: 'HTML' });
    expect(sent.text).toBe('Hello world & more');
    expect(sent.entities).toEqual([
      { type: 'bold', offset: 0, length: 5 },
      { type: 'italic', offset: 6, length: 5 },
    ]);
    expect(sent.chat).toMatchObject({ id: 42, type: 'private' });
    expect(sent.from).toMatchObject({ id: h.server.botUser.id, is_bot: true });

    const keyboard = new InlineKeyboard().text('Stop', 'stop:1');
    const edited = await bot.api.editMessageText(42, sent.message_id, 'Hello <code>there</code>', { parse_mode: 'HTML', reply_markup: keyboard });
    if (edited === true) throw new Error('a chat message edit must return the Message');
    expect(edited.edit_date).toBeDefined();
    expect(edited.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Stop', callback_data: 'stop:1' }]] });

    const [view] = h.server.chatState(42).messages;
    expect(view).toMatchObject({
      message_id: sent.message_id,
      from: 'bot',
      text: 'Hello there',
      parse_mode: 'HTML',
      source: 'Hello <code>there</code>',
      entities: [{ type: 'code', offset: 6, length: 5 }],
      editCount: 1,
      reply_markup: { inline_keyboard: [[{ text: 'Stop', callback_data: 'stop:1' }]] },
    });

    await bot.api.editMessageText(42, sent.message_id, 'Hello there, done');
    const after = h.server.chatState(42).messages[0];
    expect(after.reply_markup).toBeUndefined();
    expect(after.editCount).toBe(2);
  });

  it('returns Telegram errors as GrammyError with the exact description', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();

    const parse = await grammyError(bot.api.sendMessage(42, '<b>unclosed', { parse_mode: 'HTML' }));
    expect(parse.error_code).toBe(400);
    expect(parse.description).toBe(`Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`);

    const sent = await bot.api.sendMessage(42, 'same', { reply_markup: new InlineKeyboard().text('A', 'a') });
    const notModified = await grammyError(bot.api.editMessageText(42, sent.message_id, 'same', { reply_markup: new InlineKeyboard().text('A', 'a') }));
    expect(notModified.description).toBe(
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
    const notFound = await grammyError(bot.api.editMessageText(42, 9999, 'x'));
    expect(notFound.description).toBe('Bad Request: message to edit not found');

    expect((await grammyError(bot.api.sendMessage(777, 'hi'))).description).toBe('Bad Request: chat not found');
    expect((await grammyError(bot.api.sendMessage(42, 'x'.repeat(4097)))).description).toBe('Bad Request: message is too long');
    const data = await grammyError(bot.api.sendMessage(42, 'pick', { reply_markup: new InlineKeyboard().text('A', 'é'.repeat(33)) }));
    expect(data.description).toBe('Bad Request: BUTTON_DATA_INVALID');
    await bot.api.sendMessage(42, 'pick', { reply_markup: new InlineKeyboard().text('A', 'é'.repeat(32)) });
    expect(h.server.chatState(42).messages.map((m) => m.text)).toEqual(['same', 'pick']);
  });
});

describe('flood control', () => {
  it('answers a burst past the per-chat budget with 429 and retry_after, then admits again', async () => {
    const clock = new ManualClock();
    h = await startHarness({ clock, rateLimits: { perChat: { burst: 3, rate: 1, perMs: 1000 } } });
    h.server.registerChat(42);
    const bot = h.bot();
    const first = await bot.api.sendMessage(42, 'a');
    await bot.api.sendMessage(42, 'b');
    await bot.api.editMessageText(42, first.message_id, 'a2');

    const err = await grammyError(bot.api.sendMessage(42, 'c'));
    expect(err.error_code).toBe(429);
    expect(err.description).toBe('Too Many Requests: retry after 1');
    expect(err.parameters.retry_after).toBe(1);
    expect(h.server.rateLimitedCount(42)).toBe(1);
    expect(h.server.chatState(42).messages.map((m) => m.text)).toEqual(['a2', 'b']);

    clock.advance(1000);
    await bot.api.sendMessage(42, 'c');
    expect(h.server.chatState(42).messages).toHaveLength(3);
  });
});

describe('callback queries', () => {
  it('delivers a button press to the bot and records the answer', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    bot.on('callback_query:data', async (ctx) => {
      await ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` });
      await ctx.editMessageText('Decision: approve');
    });
    const running = bot.start({ timeout: 1 });
    const prompt = await bot.api.sendMessage(42, 'Approve?', { reply_markup: new InlineKeyboard().text('Yes', 'approve:1').text('No', 'deny:1') });

    const press = h.server.clickButton(42, prompt.message_id, 'Yes');
    const id = press.callback_query!.id;
    await h.server.waitFor(() => h.server.chatState(42).messages[0].editCount === 1);

    expect(h.server.callbackQuery(id)).toMatchObject({ answered: true, data: 'approve:1', fromId: 42, answer: { text: 'got approve:1' } });
    expect(h.server.callbackQuery(id)!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(h.server.chatState(42).messages[0]).toMatchObject({ text: 'Decision: approve', editCount: 1 });
    expect(h.server.chatState(42).messages[0].reply_markup).toBeUndefined();

    const twice = await grammyError(bot.api.answerCallbackQuery(id));
    expect(twice.description).toBe('Bad Request: query is too old and response timeout expired or query ID is invalid');
    expect(() => h.server.clickButton(42, prompt.message_id, 'Maybe')).toThrow(/no callback button/);
    await bot.stop();
    await running;
  });

  it('refuses answers that come after the answer window', async () => {
    const clock = new ManualClock();
    h = await startHarness({ clock, callbackAnswerWindowMs: 15_000 });
    h.server.registerChat(42);
    const bot = h.bot();
    const prompt = await bot.api.sendMessage(42, 'Approve?', { reply_markup: new InlineKeyboard().text('Yes', 'y') });
    const id = h.server.clickButton(42, prompt.message_id, 'y').callback_query!.id;
    clock.advance(15_001);
    expect((await grammyError(bot.api.answerCallbackQuery(id))).error_code).toBe(400);
    expect(h.server.callbackQuery(id)!.answered).toBe(false);
  });
});

describe('webhooks', () => {
  let receiver: http.Server | undefined;
  afterEach(async () => {
    receiver?.closeAllConnections();
    if (receiver) await new Promise<void>((r) => receiver!.close(() => r()));
    receiver = undefined;
  });

  async function listen(handler: http.RequestListener): Promise<string> {
    receiver = http.createServer(handler);
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  }

  it('POSTs updates with the secret header and redelivers until the receiver answers 2xx', async () => {
    h = await startHarness({ rateLimits: false, webhookRetryDelayMs: 20 });
    const bot = h.bot();
    const got: string[] = [];
    bot.on('message:text', (ctx) => {
      got.push(ctx.msg.text);
    });
    await bot.init();
    const handle = webhookCallback(bot, 'http', { secretToken: 'S3cret_token-1' });
    const secrets: Array<string | undefined> = [];
    let refuseNext = true;
    const url = await listen((req, res) => {
      secrets.push(req.headers['x-telegram-bot-api-secret-token'] as string | undefined);
      if (refuseNext) {
        refuseNext = false;
        res.statusCode = 500;
        res.end();
        return;
      }
      void handle(req, res);
    });
    await bot.api.setWebhook(url, { secret_token: 'S3cret_token-1' });

    h.server.injectMessage({ chat: 42, text: 'via webhook' });
    await h.server.waitFor(() => h.server.deliveries.some((d) => d.delivered));

    expect(got).toEqual(['via webhook']);
    expect(secrets).toEqual(['S3cret_token-1', 'S3cret_token-1']);
    expect(h.server.deliveries.map((d) => d.status)).toEqual([500, 200]);
    const info = await bot.api.getWebhookInfo();
    expect(info).toMatchObject({ url, pending_update_count: 0, last_error_message: 'Wrong response from the webhook: 500 Internal Server Error' });

    const conflict = await grammyError(bot.api.getUpdates());
    expect(conflict.error_code).toBe(409);
    expect(conflict.description).toBe("Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");

    await bot.api.deleteWebhook();
    h.server.injectMessage({ chat: 42, text: 'queued for polling' });
    expect(h.server.pendingUpdateCount()).toBe(1);
    expect(got).toEqual(['via webhook']);
    await bot.api.deleteWebhook({ drop_pending_updates: true });
    expect(h.server.pendingUpdateCount()).toBe(0);
  });

  it('delivers one chat in order while other chats proceed in parallel', async () => {
    h = await startHarness({ rateLimits: false });
    const arrivals: string[] = [];
    const arrived = new EventEmitter();
    const held: http.ServerResponse[] = [];
    const url = await listen((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const text = JSON.parse(body).message.text as string;
        arrivals.push(text);
        if (text === 'A1') held.push(res);
        else res.end();
        arrived.emit('arrival');
      });
    });
    const until = (cond: () => boolean): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!cond()) return;
          arrived.off('arrival', check);
          resolve();
        };
        arrived.on('arrival', check);
        check();
      });
    expect((await h.raw('setWebhook', { url, max_connections: 10 })).result).toBe(true);

    h.server.injectMessage({ chat: 1, text: 'A1' });
    h.server.injectMessage({ chat: 1, text: 'A2' });
    h.server.injectMessage({ chat: 2, text: 'B1' });
    await until(() => arrivals.length === 2);
    await h.server.waitFor(() => h.server.deliveries.length === 1);
    expect([...arrivals].sort()).toEqual(['A1', 'B1']);
    expect(h.server.pendingUpdateCount()).toBe(2);

    held[0].end();
    await h.server.waitFor(() => h.server.deliveries.filter((d) => d.delivered).length === 3);
    expect(arrivals[2]).toBe('A2');
    expect(h.server.pendingUpdateCount()).toBe(0);
  });

  it('runs a method carried in the webhook response body (webhook reply)', async () => {
    h = await startHarness({ rateLimits: false });
    const bot = new Bot(h.server.token, { client: { apiRoot: h.server.apiRoot, canUseWebhookReply: (m) => m === 'sendMessage' } });
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.msg.text}`));
    await bot.init();
    const url = await listen(webhookCallback(bot, 'http'));
    await bot.api.setWebhook(url);

    h.server.injectMessage({ chat: 42, text: 'ping' });
    const call = await h.server.waitForCall('sendMessage');
    expect(call).toMatchObject({ via: 'webhook-reply', ok: true, chatId: 42 });
    expect(h.server.botMessages(42).map((m) => m.text)).toEqual(['echo: ping']);
  });
});

describe('allowed_updates', () => {
  it('queues only the update types the bot asked for', async () => {
    h = await startHarness({ rateLimits: false });
    await h.raw('getUpdates', { allowed_updates: ['callback_query'] });
    const bot = h.bot();
    h.server.injectMessage({ chat: 42, text: 'ignored' });
    const prompt = await bot.api.sendMessage(42, 'pick', { reply_markup: new InlineKeyboard().text('A', 'a') });
    const press = h.server.clickButton(42, prompt.message_id, 'A');
    const r = await h.raw('getUpdates');
    expect(r.result.map((u: { update_id: number }) => u.update_id)).toEqual([press.update_id]);
  });
});

describe('many chats', () => {
  it('serves hundreds of chats through one polling bot', async () => {
    h = await startHarness({ rateLimits: false });
    const bot = h.bot();
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.msg.text}`));
    const running = bot.start({ timeout: 1 });
    const chats = Array.from({ length: 300 }, (_, i) => 10_000 + i);
    for (const id of chats) h.server.injectMessage({ chat: id, text: `hi ${id}` });
    await h.server.waitFor(() => h.server.callsTo('sendMessage').length === chats.length, 20_000);
    await bot.stop();
    await running;
    for (const id of [chats[0], chats[150], chats[299]]) {
      expect(h.server.botMessages(id).map((m) => m.text)).toEqual([`echo: hi ${id}`]);
    }
    expect(h.server.callsTo('sendMessage').every((c) => c.ok)).toBe(true);
    expect(h.server.pendingUpdateCount()).toBe(0);
  });

  it('pages 1,000 pending updates with limit', async () => {
    h = await startHarness();
    for (let i = 0; i < 1000; i++) h.server.injectMessage({ chat: 20_000 + i, text: 'x' });
    let offset: number | undefined;
    const seen = new Set<number>();
    for (;;) {
      const r = await h.raw('getUpdates', offset === undefined ? { limit: 100 } : { offset, limit: 100 });
      if (r.result.length === 0) break;
      expect(r.result.length).toBeLessThanOrEqual(100);
      for (const u of r.result) seen.add(u.message.chat.id);
      offset = r.result[r.result.length - 1].update_id + 1;
    }
    expect(seen.size).toBe(1000);
    expect(h.server.pendingUpdateCount()).toBe(0);
  });
});

it('GrammyError is what grammY raises for fake errors', async () => {
  h = await startHarness();
  const err = await grammyError(h.bot().api.sendMessage(1, 'x'));
  expect(err).toBeInstanceOf(GrammyError);
  expect(err.method).toBe('sendMessage');
});
