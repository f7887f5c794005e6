/**
 * The adapter against the fake Bot API over real HTTP (no gateway): start checks the token, registers
 * the commands and long-polls; inbound messages, attachments and button presses reach the handler;
 * stop ends polling for good and is idempotent; a bad token fails start with a clear error.
 */
import { TelegramAdapter } from '../../../src/adapters/telegram/adapter';
import { tgErrors } from '../../fakes/telegram-errors';
import { startHarness, RecordingHandler, type Harness } from './harness';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('Telegram adapter lifecycle (long polling)', () => {
  it('checks the token first, registers the commands, polls, and stops with no getUpdates afterwards', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter();
    const handler = new RecordingHandler();
    await adapter.start(handler);

    expect(h.server.calls[0].method).toBe('getMe');
    expect(h.server.myCommands().map((c) => c.command)).toEqual(['new', 'stop', 'mode', 'status', 'schedules', 'help']);
    expect(adapter.username).toBe('fake_test_bot');

    const first = h.server.injectMessage({ chat: 42, text: 'hello' });
    await handler.waitFor(() => handler.messages.length === 1, 'first message');
    expect(handler.messages[0]).toMatchObject({ text: 'hello', isDM: true, mentionsBot: true, eventId: String(first.update_id), thread: { chat: '42', topic: null } });

    await adapter.stop();
    await adapter.stop();
    const polls = h.server.callCount('getUpdates');
    expect(h.server.confirmedUpdateId).toBe(first.update_id);
    h.server.injectMessage({ chat: 42, text: 'too late' });
    await pause(150);
    expect(h.server.callCount('getUpdates')).toBe(polls);
    expect(h.server.isPolling).toBe(false);
    expect(h.server.pendingUpdateCount()).toBe(1);
    expect(handler.messages).toHaveLength(1);
  });

  it('reports a poll loop that ended on its own, restarts it, and is healthy again', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter({}, { pollRestartMs: 300 });
    const handler = new RecordingHandler();
    await adapter.start(handler);
    expect(adapter.health()).toMatchObject({ state: 'connected' });
    h.server.failNext({ method: 'getUpdates', times: 1, with: tgErrors.conflict('terminated by other getUpdates request; make sure that only one bot instance is running') });
    h.server.injectMessage({ chat: 42, text: 'one' });
    // the adapter's own state changes without a call to the fake: look at it every few milliseconds
    for (let i = 0; i < 500 && adapter.health().state !== 'reconnecting'; i++) await pause(5);
    expect(adapter.health()).toMatchObject({ state: 'reconnecting', detail: expect.stringContaining('Conflict') });
    await handler.waitFor(() => handler.messages.length === 1, 'the message, after the restart');
    expect(adapter.health()).toMatchObject({ state: 'connected', lastEventAt: expect.any(Number) });
    expect(h.server.callsTo('getUpdates').filter((c) => c.status === 409)).toHaveLength(1);
  });

  it('fails start with a clear error on a bad token, and never polls', async () => {
    h = await startHarness();
    const adapter = h.adapter({ botToken: '123456789:WRONG-token' });
    await expect(adapter.start(new RecordingHandler())).rejects.toThrow('Telegram rejected the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN');
    expect(h.server.callCount('getUpdates')).toBe(0);
    expect(h.server.callCount('setMyCommands')).toBe(0);
    await expect(adapter.stop()).resolves.toBeUndefined();
  });

  it('refuses a second start while running', async () => {
    h = await startHarness();
    const adapter = h.adapter();
    await adapter.start(new RecordingHandler());
    await expect(adapter.start(new RecordingHandler())).rejects.toThrow('the Telegram adapter cannot start: it is running');
  });

  it('rejects an invalid config naming the field', () => {
    expect(() => new TelegramAdapter({ botToken: 'nope', apiRoot: 'x', mode: 'webhook', draftStreaming: true })).toThrow(
      /invalid Telegram adapter config: botToken: .*; apiRoot: .*; webhookUrl: webhookUrl is required in webhook mode; webhookSecret: webhookSecret is required in webhook mode/,
    );
  });

  it('delivers group messages with their addressing, and forum topics as their own threads', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter();
    const handler = new RecordingHandler();
    await adapter.start(handler);
    const chat = { id: -1001000, type: 'supergroup' as const, is_forum: true };
    h.server.injectMessage({ chat, from: 7, text: 'lunch anyone?' });
    h.server.injectMessage({ chat, from: 7, text: '@fake_test_bot summarise this', message_thread_id: 12 });
    await handler.waitFor(() => handler.messages.length === 2, 'two group messages');
    const [plain, addressed] = handler.messages;
    expect(plain).toMatchObject({ isDM: false, mentionsBot: false, text: 'lunch anyone?', thread: { chat: '-1001000', topic: null }, user: { id: '7', isBot: false } });
    expect(addressed).toMatchObject({ isDM: false, mentionsBot: true, text: 'summarise this', thread: { chat: '-1001000', topic: '12' } });
  });

  it('keeps one conversation in order while a slow handler does not hold up another chat', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter();
    const handler = new RecordingHandler();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    handler.onMessageHook = async (m) => {
      if (m.text === 'slow') await gate;
    };
    await adapter.start(handler);
    h.server.injectMessage({ chat: 42, text: 'slow' });
    h.server.injectMessage({ chat: 42, text: 'after slow' });
    h.server.injectMessage({ chat: 43, text: 'other chat' });
    await handler.waitFor(() => handler.messages.some((m) => m.text === 'other chat'), 'the other chat');
    expect(handler.messages.map((m) => m.text)).toEqual(['other chat']);
    release();
    await handler.waitFor(() => handler.messages.length === 3, 'all three');
    expect(handler.messages.map((m) => m.text)).toEqual(['other chat', 'slow', 'after slow']);
  });

  it('delivers photos and documents whose download fetches the real bytes', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter();
    const handler = new RecordingHandler();
    await adapter.start(handler);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    h.server.injectMessage({ chat: 42, text: 'look', photo: { data: jpeg, width: 640, height: 480 } });
    h.server.injectMessage({ chat: 42, document: { data: 'col1,col2\n1,2\n', fileName: 'data.csv', mimeType: 'text/csv' } });
    await handler.waitFor(() => handler.messages.length === 2, 'two file messages');
    const [photo, doc] = handler.messages;
    expect(photo.text).toBe('look');
    expect(photo.attachments.map((a) => [a.kind, a.mimeType, a.sizeBytes])).toEqual([['image', 'image/jpeg', jpeg.length]]);
    expect(await photo.attachments[0].download()).toEqual(jpeg);
    expect(doc.attachments.map((a) => [a.kind, a.name, a.mimeType])).toEqual([['file', 'data.csv', 'text/csv']]);
    expect((await doc.attachments[0].download()).toString()).toBe('col1,col2\n1,2\n');
    expect(h.server.callCount('getFile')).toBe(2);
  });

  it('answers a button press exactly once, however often the handler answers', async () => {
    h = await startHarness({ rateLimits: false });
    const adapter = h.adapter();
    const handler = new RecordingHandler();
    handler.onActionHook = async (a) => {
      await a.answer({ text: 'Allowed' });
      await a.answer({ text: 'twice' });
    };
    await adapter.start(handler);
    const thread = { platform: 'telegram' as const, chat: '42', topic: null };
    h.server.registerChat(42);
    const card = await adapter.post(thread, { text: 'Run `ls`?', header: '', answer: '', answerOffset: 0, plain: false, final: true, part: 0, buttons: [{ label: 'Allow', payload: 'a:ap1:allow', style: 'primary' }] });
    const press = h.server.clickButton(42, Number(card.messageId), 'Allow');
    await handler.waitFor(() => handler.actions.length === 1, 'the button press');
    expect(handler.actions[0]).toMatchObject({ payload: 'a:ap1:allow', eventId: String(press.update_id), message: { messageId: card.messageId }, user: { id: '42' } });
    const answered = h.server.callbackQueries();
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ answered: true, answer: { text: 'Allowed' } });
    expect(h.server.callCount('answerCallbackQuery')).toBe(1);
  });
});
