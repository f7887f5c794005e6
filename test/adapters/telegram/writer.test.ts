/**
 * The adapter driven the way the gateway drives it: the real MessageWriter and RateGovernor through
 * `surfaceFor`, against the fake Bot API with its flood control, all on one ScaledClock. Parse errors are
 * resent as plain text, a 429 storm is obeyed (no call into the chat before retry_after has passed) with
 * the complete text delivered, and DMs stream through drafts (falling back to send + edit when refused).
 */
import { surfaceFor } from '../../../src/adapters/contract/adapter';
import { isPlatformError, type PlatformError } from '../../../src/adapters/contract/errors';
import type { MessageSurface } from '../../../src/adapters/contract/surface';
import type { ThreadRef } from '../../../src/adapters/contract/thread-ref';
import { MessageWriter, type WriterResult } from '../../../src/adapters/render/message-writer';
import { RateGovernor } from '../../../src/adapters/render/rate-governor';
import type { TelegramAdapter } from '../../../src/adapters/telegram/adapter';
import { telegramThread } from '../../../src/adapters/telegram/thread';
import { tgErrors } from '../../fakes/telegram-errors';
import { startHarness, type Harness, type ScaledClock } from './harness';

let h: Harness;
const writers: MessageWriter[] = [];
afterEach(async () => {
  for (const w of writers.splice(0)) w.close();
  await h?.cleanup();
});

interface CallLog {
  op: string;
  start: number;
  end?: number;
  error?: PlatformError;
}

/** Wraps a surface to log when each call starts and how it ends, on the test clock. */
function recording(surface: MessageSurface, clock: ScaledClock, log: CallLog[]): MessageSurface {
  const wrap = <A extends unknown[], R>(op: string, fn: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    const entry: CallLog = { op, start: clock.now() };
    log.push(entry);
    try {
      return await fn(...a);
    } catch (err) {
      if (isPlatformError(err)) entry.error = err;
      throw err;
    } finally {
      entry.end = clock.now();
    }
  };
  const native = surface.native?.kind === 'draft' ? { kind: 'draft' as const, draft: wrap('draft', surface.native.draft) } : surface.native;
  return { ...surface, post: wrap('post', surface.post), edit: wrap('edit', surface.edit), delete: wrap('delete', surface.delete), ...(native ? { native } : {}) };
}

function writerFor(adapter: TelegramAdapter, governor: RateGovernor, thread: ThreadRef, isDM: boolean, log: CallLog[] = []): MessageWriter {
  const w = new MessageWriter({ surface: recording(surfaceFor(adapter, thread, { isDM }), h.clock, log), clock: h.clock, governor, limits: adapter.limits, isDM });
  writers.push(w);
  return w;
}

/** Streams `answer` into the writer in `pieces` deltas, `everyMs` apart on the clock, then finishes. */
function stream(writer: MessageWriter, answer: string, pieces: number, everyMs: number): Promise<WriterResult> {
  return new Promise((resolve, reject) => {
    const size = Math.ceil(answer.length / pieces);
    let at = 0;
    const step = () => {
      at = Math.min(answer.length, at + size);
      writer.update({ header: '', answer: answer.slice(0, at) });
      if (at < answer.length) h.clock.setTimeout(step, everyMs);
      else writer.finish({ header: '', answer }).then(resolve, reject);
    };
    step();
  });
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

function prose(words: number, tag: string): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`${tag}${i}${i % 60 === 59 ? '.\n\n' : ' '}`);
  return out.join('').trim();
}

describe('Telegram adapter under the message writer', () => {
  it('resends a post as plain text when Telegram cannot parse its entities', async () => {
    h = await startHarness();
    const adapter = h.adapter();
    const governor = new RateGovernor(h.clock);
    h.server.registerChat(42);
    h.server.failNext({ method: 'sendMessage', chatId: 42, with: tgErrors.cantParseEntities("can't find end of the entity starting at byte offset 0") });
    const result = await writerFor(adapter, governor, telegramThread(42), true).finish({ header: '', answer: 'Hello **world** & <you>' });
    expect(result.ok).toBe(true);
    const msgs = h.server.botMessages(42);
    expect(msgs).toHaveLength(1);
    expect(msgs[0].text).toBe('Hello **world** & <you>');
    expect(msgs[0].parse_mode).toBeUndefined();
    expect(h.server.callsTo('sendMessage').map((c) => [c.ok, c.params.parse_mode])).toEqual([[false, 'HTML'], [true, undefined]]);
  });

  it('resends an edit as plain text when Telegram cannot parse its entities, keeping the buttons', async () => {
    h = await startHarness();
    const adapter = h.adapter();
    const governor = new RateGovernor(h.clock);
    h.server.registerChat(-500);
    const writer = writerFor(adapter, governor, telegramThread(-500), false);
    const stop = [{ label: 'Stop', payload: 's:t1', style: 'danger' as const }];
    writer.update({ header: '', answer: 'Hello **wor', buttons: stop });
    await h.server.waitFor(() => h.server.botMessages(-500).length === 1, 5000, 'the live post');
    expect(h.server.botMessages(-500)[0]).toMatchObject({ text: 'Hello wor', parse_mode: 'HTML' });
    h.server.failNext({ method: 'editMessageText', chatId: -500, with: tgErrors.cantParseEntities('unexpected end tag at byte offset 9') });
    writer.update({ header: '', answer: 'Hello **world** & <you>', buttons: stop });
    await writer.flushNow();
    const [msg] = h.server.botMessages(-500);
    expect(msg.text).toBe('Hello **world** & <you>');
    expect(msg.parse_mode).toBeUndefined();
    expect(msg.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Stop', callback_data: 's:t1', style: 'danger' }]] });
    expect(h.server.callsTo('editMessageText').map((c) => [c.ok, c.params.parse_mode])).toEqual([[false, 'HTML'], [true, undefined]]);
    expect((await writer.finish({ header: '', answer: 'Hello **world** & <you>' })).ok).toBe(true);
    expect(h.server.botMessages(-500)[0].reply_markup).toEqual({ inline_keyboard: [] });
  });

  it('obeys a 429 storm across two live replies in one group: no call before retry_after, complete text', async () => {
    h = await startHarness({ factor: 25 });
    const adapter = h.adapter();
    const governor = new RateGovernor(h.clock);
    const chat = { id: -1003000, type: 'supergroup' as const, is_forum: true };
    h.server.registerChat(chat);
    h.server.addForumTopic(chat.id, 1);
    h.server.addForumTopic(chat.id, 2);
    h.server.failNext({ method: 'editMessageText', chatId: chat.id, times: 4, with: tgErrors.tooManyRequests(3) });
    h.server.failNext({ method: 'sendMessage', chatId: chat.id, times: 2, with: tgErrors.tooManyRequests(2) });
    const log: CallLog[] = [];
    const answers = [prose(900, 'a'), prose(700, 'b')];
    const results = await Promise.all(answers.map((answer, i) => stream(writerFor(adapter, governor, telegramThread(chat.id, i + 1), false, log), answer, 40, 400)));
    expect(results.map((r) => r.ok)).toEqual([true, true]);

    // every message of each topic, in order, carries the whole answer once
    for (const [i, answer] of answers.entries()) {
      const texts = h.server.botMessages(chat.id).filter((m) => m.message_thread_id === i + 1).map((m) => m.text ?? '');
      expect(texts.length).toBeGreaterThan(1);
      for (const t of texts) expect(t.length).toBeLessThanOrEqual(4096);
      expect(norm(texts.join(' '))).toBe(norm(answer));
    }

    // each 429 the writer saw paused the whole chat: nothing started until retry_after had passed
    const limited = log.filter((c) => c.error?.classification.kind === 'retry' && c.error.classification.retryAfterMs !== undefined);
    expect(limited.length).toBeGreaterThanOrEqual(6);
    for (const c of limited) {
      const until = c.end! + (c.error!.classification as { retryAfterMs: number }).retryAfterMs;
      const early = log.filter((o) => o.start > c.end! && o.start < until);
      expect(early).toEqual([]);
    }
    expect(h.server.rateLimitedCount(chat.id)).toBe(limited.length);
  });

  it('streams a DM reply through drafts and posts the final message once', async () => {
    h = await startHarness();
    const adapter = h.adapter();
    const governor = new RateGovernor(h.clock);
    h.server.registerChat(42);
    const answer = `**Plan**\n\n${prose(120, 'w')}`;
    const result = await stream(writerFor(adapter, governor, telegramThread(42), true), answer, 12, 300);
    expect(result.ok).toBe(true);
    const drafts = h.server.callsTo('sendMessageDraft');
    expect(drafts.length).toBeGreaterThan(1);
    expect(drafts.every((c) => c.ok && c.params.parse_mode === 'HTML' && Number(c.params.draft_id) !== 0)).toBe(true);
    expect(new Set(drafts.map((c) => c.params.draft_id)).size).toBe(1);
    expect(h.server.callCount('editMessageText')).toBe(0);
    const msgs = h.server.botMessages(42);
    expect(msgs).toHaveLength(1);
    expect(msgs[0].entities[0]).toMatchObject({ type: 'bold', offset: 0, length: 4 });
    expect(norm(msgs[0].text!)).toBe(norm(answer.replace(/\*\*/g, '')));
    expect(h.server.chatState(42).draft).toBeUndefined();
  });

  it('falls back to send + edit when Telegram refuses drafts, and remembers the chat', async () => {
    h = await startHarness();
    const adapter = h.adapter();
    const governor = new RateGovernor(h.clock);
    h.server.registerChat(42);
    h.server.failNext({ method: 'sendMessageDraft', chatId: 42, with: tgErrors.badRequest('TEXTDRAFT_PEER_INVALID') });
    const answer = prose(150, 'z');
    const result = await stream(writerFor(adapter, governor, telegramThread(42), true), answer, 10, 300);
    expect(result.ok).toBe(true);
    expect(h.server.callCount('sendMessageDraft')).toBe(1);
    expect(h.server.callCount('editMessageText')).toBeGreaterThan(0);
    const msgs = h.server.botMessages(42);
    expect(msgs).toHaveLength(1);
    expect(norm(msgs[0].text!)).toBe(norm(answer));
    expect(adapter.nativeStream(telegramThread(42), true)).toBeUndefined();
    expect(adapter.nativeStream(telegramThread(43), true)?.kind).toBe('draft');
  });
});
