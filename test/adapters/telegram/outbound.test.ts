/**
 * Outbound calls against the fake Bot API: posts and edits render Markdown as HTML with the inline
 * keyboard (kept on every edit that should keep it, removed by an edit without buttons), topics get
 * message_thread_id, typing / reactions / deletes work, and failures arrive as classified PlatformErrors.
 */
import { PlatformError } from '../../../src/adapters/contract/errors';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { TelegramAdapter } from '../../../src/adapters/telegram/adapter';
import { telegramThread } from '../../../src/adapters/telegram/thread';
import { tgErrors } from '../../fakes/telegram-errors';
import { buttonsOf } from '../../fakes/telegram-markup';
import { startHarness, type Harness } from './harness';

let h: Harness;
let adapter: TelegramAdapter;
beforeEach(async () => {
  h = await startHarness({ rateLimits: false });
  adapter = h.adapter();
});
afterEach(async () => {
  await h.cleanup();
});

const content = (text: string, extra: Partial<OutboundContent> = {}): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0, ...extra });
const stop = [{ label: 'Stop', payload: 's:task1', style: 'danger' as const }];

async function rejection(p: Promise<unknown>): Promise<PlatformError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PlatformError);
    return err as PlatformError;
  }
  throw new Error('expected the call to fail');
}

describe('Telegram outbound', () => {
  it('posts HTML with buttons and keeps the buttons across edits until an edit without them', async () => {
    h.server.registerChat(42);
    const thread = telegramThread(42);
    const ref = await adapter.post(thread, content('**Working** on `ls` & co', { buttons: stop, final: false }));
    const id = Number(ref.messageId);
    let [msg] = h.server.botMessages(42);
    expect(msg.text).toBe('Working on ls & co');
    expect(msg.parse_mode).toBe('HTML');
    expect(msg.entities.map((e) => e.type)).toEqual(['bold', 'code']);
    expect(buttonsOf(msg.reply_markup)).toEqual([{ text: 'Stop', callback_data: 's:task1', style: 'danger' }]);
    expect(h.server.callsTo('sendMessage')[0].params.link_preview_options).toEqual({ is_disabled: true });

    await adapter.edit(ref, content('**Working** on `ls` & co, still', { buttons: stop, final: false }));
    [msg] = h.server.botMessages(42);
    expect(msg.text).toBe('Working on ls & co, still');
    expect(buttonsOf(msg.reply_markup).map((b) => b.text)).toEqual(['Stop']);

    await adapter.edit(ref, content('Done.'));
    [msg] = h.server.botMessages(42);
    expect(msg.message_id).toBe(id);
    expect(msg.text).toBe('Done.');
    expect(buttonsOf(msg.reply_markup)).toEqual([]);
    expect(h.server.callsTo('editMessageText').every((c) => c.params.reply_markup !== undefined)).toBe(true);
  });

  it('sends plain content without parse_mode, exactly as written', async () => {
    h.server.registerChat(42);
    await adapter.post(telegramThread(42), content('**not bold** <tag> & more', { plain: true }));
    const [msg] = h.server.botMessages(42);
    expect(msg.text).toBe('**not bold** <tag> & more');
    expect(msg.parse_mode).toBeUndefined();
    expect(msg.entities).toEqual([]);
  });

  it('posts into forum topics with message_thread_id and shows typing there', async () => {
    const chat = { id: -1002000, type: 'supergroup' as const, is_forum: true };
    h.server.registerChat(chat);
    h.server.addForumTopic(chat.id, 9);
    const thread = telegramThread(chat.id, 9);
    await adapter.post(thread, content('in the topic'));
    await adapter.typing(thread);
    expect(h.server.botMessages(chat.id)[0].message_thread_id).toBe(9);
    expect(h.server.chatState(chat.id).actions).toEqual([{ action: 'typing', at: expect.any(Number), message_thread_id: 9 }]);
    expect(adapter.limits.typingRenewMs).toBe(4000);
  });

  it('reacts to a user message and deletes its own', async () => {
    const update = h.server.injectMessage({ chat: 42, text: 'hi' });
    const thread = telegramThread(42);
    await adapter.react({ thread, messageId: String(update.message!.message_id) }, '👀');
    expect(h.server.chatState(42).messages[0].reactions).toEqual([{ type: 'emoji', emoji: '👀' }]);
    const ref = await adapter.post(thread, content('temporary'));
    await adapter.delete(ref);
    expect(h.server.botMessages(42)).toEqual([]);
    expect((await rejection(adapter.delete(ref))).classification).toEqual({ kind: 'degrade', reason: 'gone' });
  });

  it('throws classified errors: not modified, too many requests, parse errors, blocked', async () => {
    h.server.registerChat(42);
    const thread = telegramThread(42);
    const ref = await adapter.post(thread, content('same'));
    expect((await rejection(adapter.edit(ref, content('same')))).classification).toEqual({ kind: 'ignore', reason: 'not_modified' });

    h.server.failNext({ method: 'sendMessage', with: tgErrors.tooManyRequests(3) });
    expect((await rejection(adapter.post(thread, content('x')))).classification).toEqual({ kind: 'retry', retryAfterMs: 3000, scope: 'chat' });

    h.server.failNext({ method: 'sendMessage', with: tgErrors.cantParseEntities('unexpected end tag') });
    expect((await rejection(adapter.post(thread, content('x')))).classification).toEqual({ kind: 'degrade', reason: 'format' });

    h.server.failNext({ method: 'sendMessage', with: { httpStatus: 502, body: '<html>bad gateway</html>' } });
    expect((await rejection(adapter.post(thread, content('x')))).classification.kind).toBe('retry');

    h.server.setBotBlocked(42, true);
    expect((await rejection(adapter.post(thread, content('x')))).classification).toEqual({ kind: 'surface', reason: 'blocked' });
    expect((await rejection(adapter.edit({ thread, messageId: 'not-a-number' }, content('x')))).classification).toEqual({ kind: 'degrade', reason: 'gone' });
  });

  it('offers draft streaming only in DMs with drafts enabled', async () => {
    expect(adapter.nativeStream(telegramThread(42), true)?.kind).toBe('draft');
    expect(adapter.nativeStream(telegramThread(-100123), false)).toBeUndefined();
    expect(h.adapter({ draftStreaming: false }).nativeStream(telegramThread(42), true)).toBeUndefined();
  });

  it('declares Telegram limits paced by the configured streaming settings', () => {
    expect(adapter.limits).toMatchObject({ maxChars: 4096, lengthUnit: 'utf16', splitTarget: 4000, minEditIntervalMs: { dm: 1000, group: 3000 }, buttonPayloadBytes: 64, typingRenewMs: 4000 });
    const paced = h.adapter({ streaming: { dm_edit_interval_ms: 1500, group_edit_interval_ms: 5000, typing_renew_ms: 0 } }).limits;
    expect(paced).toMatchObject({ minEditIntervalMs: { dm: 1500, group: 5000 }, typingRenewMs: 0 });
  });
});
