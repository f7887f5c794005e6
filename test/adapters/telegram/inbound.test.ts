/**
 * updateToInbound, the pure mapping from Bot API updates to the gateway's events: DMs, group addressing
 * (mention, /command, reply to the bot, or not addressed at all), forum topics, photos and documents with
 * their downloads, bot senders, ignored updates, and callback queries answered exactly once.
 */
import { GrammyError } from 'grammy';
import type { ActionEvent, InboundMessage } from '../../../src/adapters/contract/messages';
import { GETFILE_MAX_BYTES } from '../../../src/adapters/telegram/attachments';
import { updateToInbound, type InboundIo, type MessageLike, type UpdateLike } from '../../../src/adapters/telegram/inbound';

const BOT = { id: 999, username: 'penguin_bot' };
const alice = { id: 42, is_bot: false, first_name: 'Alice', username: 'alice' };
const bob = { id: 43, is_bot: false, first_name: 'Bob' };

function io(files: Record<string, Buffer> = {}) {
  const downloads: string[] = [];
  const answers: Array<{ id: string; text?: string; show_alert?: boolean }> = [];
  let answerError: unknown;
  const value: InboundIo = {
    downloadFile: async (id) => {
      downloads.push(id);
      const f = files[id];
      if (!f) throw new Error(`no file ${id}`);
      return f;
    },
    answerCallbackQuery: async (id, a) => {
      answers.push({ id, ...a });
      if (answerError) throw answerError;
      return true;
    },
  };
  return { value, downloads, answers, failAnswers: (e: unknown) => (answerError = e) };
}

const dm = (fields: Partial<MessageLike>): MessageLike => ({ message_id: 7, date: 1_767_225_600, chat: { id: 42, type: 'private' }, from: alice, ...fields });
const group = (fields: Partial<MessageLike>): MessageLike => ({ message_id: 70, date: 1_767_225_600, chat: { id: -100555, type: 'supergroup' }, from: bob, ...fields });

function message(update: UpdateLike, i = io().value): InboundMessage {
  const ev = updateToInbound(update, BOT, i);
  if (ev?.kind !== 'message') throw new Error(`expected a message event, got ${JSON.stringify(ev)}`);
  return ev.message;
}

function action(update: UpdateLike, i: InboundIo): ActionEvent {
  const ev = updateToInbound(update, BOT, i);
  if (ev?.kind !== 'action') throw new Error(`expected an action event, got ${JSON.stringify(ev)}`);
  return ev.action;
}

describe('updateToInbound: messages', () => {
  it('maps a private message: DM, addressed, ids from the update, user from username', () => {
    const m = message({ update_id: 5001, message: dm({ text: 'hello there' }) });
    expect(m).toEqual({
      platform: 'telegram',
      thread: { platform: 'telegram', chat: '42', topic: null },
      user: { id: '42', name: 'alice', isBot: false },
      text: 'hello there',
      attachments: [],
      mentionsBot: true,
      isDM: true,
      eventId: '5001',
      messageId: '7',
      sentAt: 1_767_225_600_000,
    });
  });

  it('uses the first name when the user has no username', () => {
    expect(message({ update_id: 1, message: group({ text: '@penguin_bot hi' , entities: [{ type: 'mention', offset: 0, length: 12 }] }) }).user).toEqual({ id: '43', name: 'Bob', isBot: false });
  });

  it('addresses the bot in a group by @mention (any case) and strips the mention', () => {
    const text = 'hey @Penguin_Bot what is up';
    const m = message({ update_id: 2, message: group({ text, entities: [{ type: 'mention', offset: 4, length: 12 }] }) });
    expect(m.isDM).toBe(false);
    expect(m.mentionsBot).toBe(true);
    expect(m.text).toBe('hey what is up');
    expect(m.thread).toEqual({ platform: 'telegram', chat: '-100555', topic: null });
  });

  it('counts offsets in UTF-16 units (emoji before the mention)', () => {
    const text = '😀😀 @penguin_bot run it';
    const m = message({ update_id: 3, message: group({ text, entities: [{ type: 'mention', offset: 5, length: 12 }] }) });
    expect(m.mentionsBot).toBe(true);
    expect(m.text).toBe('😀😀 run it');
  });

  it('does not count a mention of another user', () => {
    const m = message({ update_id: 4, message: group({ text: '@someone_else look', entities: [{ type: 'mention', offset: 0, length: 13 }] }) });
    expect(m.mentionsBot).toBe(false);
    expect(m.text).toBe('@someone_else look');
  });

  it('counts a text_mention of the bot', () => {
    const m = message({ update_id: 5, message: group({ text: 'Penguin help', entities: [{ type: 'text_mention', offset: 0, length: 7, user: { id: 999 } }] }) });
    expect(m.mentionsBot).toBe(true);
  });

  it('addresses the bot with /commands for it or for no bot, and strips the @botname suffix', () => {
    const addressed = message({ update_id: 6, message: group({ text: '/new@penguin_bot', entities: [{ type: 'bot_command', offset: 0, length: 16 }] }) });
    expect(addressed.mentionsBot).toBe(true);
    expect(addressed.text).toBe('/new');
    const bare = message({ update_id: 7, message: group({ text: '/mode read-only', entities: [{ type: 'bot_command', offset: 0, length: 5 }] }) });
    expect(bare.mentionsBot).toBe(true);
    expect(bare.text).toBe('/mode read-only');
    const other = message({ update_id: 8, message: group({ text: '/new@other_bot', entities: [{ type: 'bot_command', offset: 0, length: 14 }] }) });
    expect(other.mentionsBot).toBe(false);
    expect(other.text).toBe('/new@other_bot');
  });

  it('addresses the bot by a reply to one of its messages, and records the reply', () => {
    const m = message({ update_id: 9, message: group({ text: 'and then?', reply_to_message: { message_id: 66, from: { id: 999, is_bot: true, first_name: 'Penguin', username: 'penguin_bot' } } }) });
    expect(m.mentionsBot).toBe(true);
    expect(m.replyTo).toEqual({ thread: m.thread, messageId: '66' });
  });

  it('does not address the bot by an unaddressed group message or a reply to someone else', () => {
    expect(message({ update_id: 10, message: group({ text: 'lunch?' }) }).mentionsBot).toBe(false);
    expect(message({ update_id: 11, message: group({ text: 'yes', reply_to_message: { message_id: 65, from: alice } }) }).mentionsBot).toBe(false);
  });

  it('maps forum topics to thread.topic and ignores the implicit reply to the topic root', () => {
    const m = message({
      update_id: 12,
      message: group({ text: 'in a topic', message_thread_id: 31, is_topic_message: true, reply_to_message: { message_id: 31, from: { id: 999, is_bot: true, first_name: 'P' } } }),
    });
    expect(m.thread).toEqual({ platform: 'telegram', chat: '-100555', topic: '31' });
    expect(m.mentionsBot).toBe(false);
    expect(m.replyTo).toBeUndefined();
  });

  it('keeps topic null for a thread id that is not a forum topic (a reply thread)', () => {
    const m = message({ update_id: 13, message: group({ text: 'x', message_thread_id: 20 }) });
    expect(m.thread.platform === 'telegram' && m.thread.topic).toBeNull();
  });

  it('flags bot senders', () => {
    const m = message({ update_id: 14, message: group({ text: 'beep', from: { id: 5, is_bot: true, first_name: 'Other', username: 'other_bot' } }) });
    expect(m.user).toEqual({ id: '5', name: 'other_bot', isBot: true });
  });

  it('maps a photo (largest size) with its caption, downloading by file id', async () => {
    const files = io({ BIG: Buffer.from('big-jpeg') });
    const m = message(
      {
        update_id: 15,
        message: dm({
          caption: 'what is this?',
          photo: [
            { file_id: 'SMALL', file_unique_id: 'u1', width: 90, height: 60, file_size: 1_000 },
            { file_id: 'BIG', file_unique_id: 'u3', width: 1280, height: 960, file_size: 90_000 },
            { file_id: 'MID', file_unique_id: 'u2', width: 320, height: 240, file_size: 9_000 },
          ],
        }),
      },
      files.value,
    );
    expect(m.text).toBe('what is this?');
    expect(m.attachments).toHaveLength(1);
    const [a] = m.attachments;
    expect({ kind: a.kind, name: a.name, mimeType: a.mimeType, sizeBytes: a.sizeBytes }).toEqual({ kind: 'image', name: 'photo_u3.jpg', mimeType: 'image/jpeg', sizeBytes: 90_000 });
    expect(files.downloads).toEqual([]);
    expect((await a.download()).toString()).toBe('big-jpeg');
    expect(files.downloads).toEqual(['BIG']);
  });

  it('maps documents: images by MIME type, other files as files, without a caption', async () => {
    const files = io({ D1: Buffer.from('%PDF'), D2: Buffer.from('png') });
    const pdf = message({ update_id: 16, message: dm({ document: { file_id: 'D1', file_unique_id: 'x1', file_name: 'report.pdf', mime_type: 'application/pdf', file_size: 4 } }) }, files.value);
    expect(pdf.text).toBe('');
    expect(pdf.attachments.map((a) => ({ kind: a.kind, name: a.name, mimeType: a.mimeType, sizeBytes: a.sizeBytes }))).toEqual([{ kind: 'file', name: 'report.pdf', mimeType: 'application/pdf', sizeBytes: 4 }]);
    expect((await pdf.attachments[0].download()).toString()).toBe('%PDF');
    const png = message({ update_id: 17, message: dm({ document: { file_id: 'D2', file_unique_id: 'x2', mime_type: 'image/png' } }) }, files.value);
    expect(png.attachments.map((a) => ({ kind: a.kind, name: a.name, mimeType: a.mimeType, sizeBytes: a.sizeBytes }))).toEqual([{ kind: 'image', name: 'file_x2', mimeType: 'image/png', sizeBytes: undefined }]);
  });

  it('refuses to download files over the 20 MB getFile limit, without calling Telegram', async () => {
    const files = io({ HUGE: Buffer.from('x') });
    const m = message({ update_id: 18, message: dm({ document: { file_id: 'HUGE', file_unique_id: 'h', file_name: 'dump.bin', file_size: GETFILE_MAX_BYTES + 1 } }) }, files.value);
    expect(m.attachments[0].sizeBytes).toBe(GETFILE_MAX_BYTES + 1);
    await expect(m.attachments[0].download()).rejects.toThrow(/dump\.bin is 20\.0 MB; Telegram bots can download files up to 20 MB/);
    expect(files.downloads).toEqual([]);
  });

  it('ignores updates the gateway does not act on', () => {
    const i = io().value;
    expect(updateToInbound({ update_id: 19, message: dm({}) }, BOT, i)).toBeUndefined(); // a service message: no text, no file
    expect(updateToInbound({ update_id: 20, message: dm({ text: 'x', from: undefined }) }, BOT, i)).toBeUndefined();
    expect(updateToInbound({ update_id: 21, edited_message: dm({ text: 'edited' }) } as UpdateLike, BOT, i)).toBeUndefined();
    expect(updateToInbound({ update_id: 22, callback_query: { id: 'q', from: alice, data: 'x' } }, BOT, i)).toBeUndefined(); // inline message: no chat
    expect(updateToInbound({ update_id: 23, callback_query: { id: 'q', from: alice, message: dm({ text: 'card' }) } }, BOT, i)).toBeUndefined(); // no data
  });
});

describe('updateToInbound: callback queries', () => {
  const update = (fields: Partial<MessageLike> = {}): UpdateLike => ({
    update_id: 900,
    callback_query: { id: 'cbq-1', from: bob, data: 'a:ap1:allow', message: group({ message_id: 77, from: { id: 999, is_bot: true, first_name: 'P' }, text: 'card', ...fields }) },
  });

  it('maps the button press to an ActionEvent on the message that carried the button', () => {
    const a = action(update({ message_thread_id: 4, is_topic_message: true }), io().value);
    expect({ ...a, answer: undefined }).toEqual({
      platform: 'telegram',
      thread: { platform: 'telegram', chat: '-100555', topic: '4' },
      user: { id: '43', name: 'Bob', isBot: false },
      payload: 'a:ap1:allow',
      message: { thread: { platform: 'telegram', chat: '-100555', topic: '4' }, messageId: '77' },
      eventId: '900',
      answer: undefined,
    });
  });

  it('answers exactly once, with the text cut to 200 characters and show_alert', async () => {
    const i = io();
    const a = action(update(), i.value);
    await a.answer({ text: 'n'.repeat(250), alert: true });
    await a.answer({ text: 'again' });
    await a.answer();
    expect(i.answers).toHaveLength(1);
    expect(i.answers[0].id).toBe('cbq-1');
    expect([...i.answers[0].text!].length).toBe(200);
    expect(i.answers[0].text!.endsWith('…')).toBe(true);
    expect(i.answers[0].show_alert).toBe(true);
  });

  it('swallows "query is too old" but reports other failures', async () => {
    const old = io();
    old.failAnswers(new GrammyError("Call to 'answerCallbackQuery' failed!", { ok: false, error_code: 400, description: 'Bad Request: query is too old and response timeout expired or query ID is invalid' }, 'answerCallbackQuery', {}));
    await expect(action(update(), old.value).answer()).resolves.toBeUndefined();

    const blocked = io();
    blocked.failAnswers(new GrammyError("Call to 'answerCallbackQuery' failed!", { ok: false, error_code: 401, description: 'Unauthorized' }, 'answerCallbackQuery', {}));
    await expect(action(update(), blocked.value).answer()).rejects.toMatchObject({ name: 'PlatformError', classification: { kind: 'surface', reason: 'auth' } });
  });
});
