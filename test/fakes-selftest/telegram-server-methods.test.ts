/**
 * The fake Telegram server's remaining surface through real grammY calls: files (multipart upload,
 * getFile, download), drafts, reactions, chat actions, commands, deletion, forum topics, replies,
 * blocked bots, forced faults, group and bot-wide flood control, auth and unknown methods.
 */
import { GrammyError, HttpError, InlineKeyboard, InputFile } from 'grammy';
import { ManualClock } from '../fakes/telegram-clock';
import { tgErrors } from '../fakes/telegram-errors';
import { grammyError, startHarness, type Harness } from './telegram-harness';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('files', () => {
  it('serves registered files through getFile and the /file/ download path', async () => {
    h = await startHarness();
    const bot = h.bot();
    const f = h.server.registerFile('hello file', { fileName: 'a.txt', mimeType: 'text/plain' });
    const file = await bot.api.getFile(f.file_id);
    expect(file).toEqual({ file_id: f.file_id, file_unique_id: f.file_unique_id, file_size: 10, file_path: f.file_path });
    const res = await fetch(`${h.server.apiRoot}/file/bot${h.server.token}/${file.file_path}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello file');
    expect((await fetch(`${h.server.apiRoot}/file/bot1:wrong/${file.file_path}`)).status).toBe(404);
    expect((await grammyError(bot.api.getFile('nope'))).description).toBe('Bad Request: invalid file_id');
  });

  it('accepts photo and document uploads as multipart and keeps their bytes', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    const photo = await bot.api.sendPhoto(42, new InputFile(Buffer.from('PNGDATA'), 'pic.png'), { caption: '<b>cap</b>', parse_mode: 'HTML' });
    expect(photo.caption).toBe('cap');
    expect(photo.caption_entities).toEqual([{ type: 'bold', offset: 0, length: 3 }]);
    const doc = await bot.api.sendDocument(42, new InputFile(Buffer.from('report body'), 'report.txt'), {
      reply_markup: new InlineKeyboard().text('OK', 'ok'),
    });
    expect(doc.document!.file_name).toBe('report.txt');
    await bot.api.sendDocument(42, doc.document!.file_id);

    const [p, d, again] = h.server.chatState(42).messages;
    expect(p.photo!.data.toString()).toBe('PNGDATA');
    expect(d.document).toMatchObject({ file_name: 'report.txt' });
    expect(d.document!.data.toString()).toBe('report body');
    expect(d.reply_markup).toEqual({ inline_keyboard: [[{ text: 'OK', callback_data: 'ok' }]] });
    expect(again.document!.file_id).toBe(doc.document!.file_id);
    expect((await grammyError(bot.api.sendDocument(42, 'https://example.com/x.pdf'))).description).toBe('Bad Request: failed to get HTTP URL content');
    expect((await grammyError(bot.api.sendPhoto(42, 'unknown-id'))).description).toBe('Bad Request: wrong file identifier/HTTP URL specified');
  });

  it('lets the bot download a photo a user sent', async () => {
    h = await startHarness();
    const bot = h.bot();
    const got: string[] = [];
    bot.on('message:photo', async (ctx) => {
      const file = await ctx.getFile();
      const res = await fetch(`${h.server.apiRoot}/file/bot${h.server.token}/${file.file_path}`);
      got.push(`${ctx.msg.caption}:${await res.text()}`);
    });
    const running = bot.start({ timeout: 1 });
    h.server.injectMessage({ chat: 42, text: 'look', photo: { data: 'IMAGE-BYTES' } });
    await h.server.waitFor(() => got.length === 1);
    expect(got).toEqual(['look:IMAGE-BYTES']);
    await bot.stop();
    await running;
  });
});

describe('chat features', () => {
  it('shows drafts in private chats only and clears them when the bot sends', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    h.server.registerChat({ id: -100, type: 'group' });
    const bot = h.bot();
    await bot.api.sendMessageDraft(42, 7, 'Thinking about <b>it</b>', { parse_mode: 'HTML' });
    await bot.api.sendMessageDraft(42, 7, 'Thinking about <b>it</b> more', { parse_mode: 'HTML' });
    expect(h.server.chatState(42).draft).toEqual({
      draft_id: 7,
      text: 'Thinking about it more',
      entities: [{ type: 'bold', offset: 15, length: 2 }],
      updates: 2,
    });
    expect((await grammyError(bot.api.sendMessageDraft(-100, 7, 'x'))).description).toBe('Bad Request: TEXTDRAFT_PEER_INVALID');
    await bot.api.sendMessage(42, 'final');
    const state = h.server.chatState(42);
    expect(state.draft).toBeUndefined();
    expect(state.draftUpdates).toBe(2);
  });

  it('expires a draft after its lifetime', async () => {
    const clock = new ManualClock();
    h = await startHarness({ clock, draftLifetimeMs: 30_000 });
    h.server.registerChat(42);
    await h.bot().api.sendMessageDraft(42, 1, 'soon gone');
    clock.advance(30_001);
    expect(h.server.chatState(42).draft).toBeUndefined();
  });

  it('records reactions, chat actions, commands and deletions', async () => {
    h = await startHarness({ rateLimits: false });
    const userMsg = h.server.injectMessage({ chat: 42, text: 'hi' }).message!;
    const bot = h.bot();

    await bot.api.setMessageReaction(42, userMsg.message_id, [{ type: 'emoji', emoji: '👍' }]);
    expect(h.server.chatState(42).messages[0].reactions).toEqual([{ type: 'emoji', emoji: '👍' }]);
    expect((await grammyError(bot.api.setMessageReaction(42, userMsg.message_id, [{ type: 'emoji', emoji: '🦆' as '👍' }]))).description).toBe(
      'Bad Request: REACTION_INVALID',
    );

    await bot.api.sendChatAction(42, 'typing');
    expect(h.server.chatState(42).actions.map((a) => a.action)).toEqual(['typing']);
    expect((await grammyError(bot.api.sendChatAction(42, 'dancing' as 'typing'))).description).toBe('Bad Request: wrong parameter action in request');

    await bot.api.setMyCommands([{ command: 'start', description: 'Start over' }]);
    await bot.api.setMyCommands([{ command: 'help', description: 'Hilfe' }], { language_code: 'de' });
    expect(await bot.api.getMyCommands()).toEqual([{ command: 'start', description: 'Start over' }]);
    expect(h.server.myCommands(undefined, 'de')).toEqual([{ command: 'help', description: 'Hilfe' }]);
    expect((await grammyError(bot.api.setMyCommands([{ command: 'Bad-Name', description: 'x' }]))).description).toBe('Bad Request: BOT_COMMAND_INVALID');

    const sent = await bot.api.sendMessage(42, 'to delete');
    await bot.api.deleteMessage(42, sent.message_id);
    expect(h.server.chatState(42).messages.map((m) => m.text)).toEqual(['hi']);
    expect(h.server.chatState(42).deletedCount).toBe(1);
    expect((await grammyError(bot.api.deleteMessage(42, sent.message_id))).description).toBe('Bad Request: message to delete not found');
  });

  it('keeps forum topics apart and rejects unknown topics', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat({ id: -1001234567890, type: 'supergroup', title: 'Forum', is_forum: true });
    const bot = h.bot();
    const seen: Array<number | undefined> = [];
    bot.on('message:text', async (ctx) => {
      seen.push(ctx.msg.message_thread_id);
      await ctx.reply('answer', { message_thread_id: ctx.msg.message_thread_id, reply_parameters: { message_id: ctx.msg.message_id } });
    });
    const running = bot.start({ timeout: 1 });
    const u = h.server.injectMessage({ chat: -1001234567890, from: 5, message_thread_id: 77, text: 'in topic' });
    expect(u.message).toMatchObject({ message_thread_id: 77, is_topic_message: true });
    await h.server.waitFor(() => h.server.botMessages(-1001234567890).length === 1);
    await bot.stop();
    await running;

    expect(seen).toEqual([77]);
    expect(h.server.botMessages(-1001234567890)[0]).toMatchObject({ text: 'answer', message_thread_id: 77, reply_to_message_id: u.message!.message_id });
    expect(h.server.chatState(-1001234567890).topics).toEqual([77]);
    expect((await grammyError(bot.api.sendMessage(-1001234567890, 'x', { message_thread_id: 99 }))).description).toBe('Bad Request: message thread not found');
    expect((await grammyError(bot.api.sendMessage(-1001234567890, 'x', { reply_parameters: { message_id: 999 } }))).description).toBe(
      'Bad Request: message to be replied not found',
    );
  });

  it('marks commands as entities so grammY command handlers fire', async () => {
    h = await startHarness({ rateLimits: false });
    const bot = h.bot();
    const args: string[] = [];
    bot.command('start', (ctx) => {
      args.push(ctx.match);
    });
    const running = bot.start({ timeout: 1 });
    h.server.injectMessage({ chat: 42, text: '/start deep-link' });
    await h.server.waitFor(() => args.length === 1);
    expect(args).toEqual(['deep-link']);
    await bot.stop();
    await running;
  });

  it('answers 403 once the user blocked the bot or the bot was removed from the group', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    h.server.registerChat({ id: -200, type: 'group' });
    const bot = h.bot();
    h.server.setBotBlocked(42, true);
    h.server.setBotBlocked(-200, true);
    const blocked = await grammyError(bot.api.sendMessage(42, 'x'));
    expect([blocked.error_code, blocked.description]).toEqual([403, 'Forbidden: bot was blocked by the user']);
    expect((await grammyError(bot.api.sendMessage(-200, 'x'))).description).toBe('Forbidden: bot was kicked from the group chat');
    h.server.setBotBlocked(42, false);
    await bot.api.sendMessage(42, 'x');
  });
});

describe('keyboards, replies and raw injections', () => {
  it('edits, keeps and removes inline keyboards with editMessageReplyMarkup', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    const sent = await bot.api.sendMessage(42, 'choose', { reply_markup: new InlineKeyboard().text('A', 'a') });
    await bot.api.editMessageReplyMarkup(42, sent.message_id, { reply_markup: new InlineKeyboard().text('B', 'b').url('Docs', 'https://example.com') });
    expect(h.server.chatState(42).messages[0].reply_markup).toEqual({
      inline_keyboard: [[{ text: 'B', callback_data: 'b' }, { text: 'Docs', url: 'https://example.com' }]],
    });
    const same = await grammyError(
      bot.api.editMessageReplyMarkup(42, sent.message_id, { reply_markup: new InlineKeyboard().text('B', 'b').url('Docs', 'https://example.com') }),
    );
    expect(same.description).toMatch(/^Bad Request: message is not modified/);
    await bot.api.editMessageReplyMarkup(42, sent.message_id);
    const view = h.server.chatState(42).messages[0];
    expect(view.reply_markup).toBeUndefined();
    expect(view).toMatchObject({ text: 'choose', editCount: 2 });
    const badUrl = await grammyError(bot.api.editMessageReplyMarkup(42, sent.message_id, { reply_markup: new InlineKeyboard().url('x', 'not a url') }));
    expect(badUrl.description).toBe('Bad Request: BUTTON_URL_INVALID');
  });

  it("refuses to edit a user's message and deletes several messages at once", async () => {
    h = await startHarness({ rateLimits: false });
    const user = h.server.injectMessage({ chat: 42, text: 'mine' }).message!;
    const bot = h.bot();
    expect((await grammyError(bot.api.editMessageText(42, user.message_id, 'hacked'))).description).toBe("Bad Request: message can't be edited");
    const a = await bot.api.sendMessage(42, 'a');
    const b = await bot.api.sendMessage(42, 'b');
    await bot.api.deleteMessages(42, [a.message_id, b.message_id, 999]);
    expect(h.server.chatState(42).messages.map((m) => m.text)).toEqual(['mine']);
  });

  it('embeds the replied-to message and passes raw callback queries and updates through', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    const prompt = await bot.api.sendMessage(42, 'question');
    const reply = h.server.injectMessage({ chat: 42, text: 'answer', reply_to: prompt.message_id });
    expect(reply.message!.reply_to_message).toMatchObject({ message_id: prompt.message_id, text: 'question', from: { is_bot: true } });
    expect(() => h.server.injectMessage({ chat: 42, text: 'x', reply_to: 999 })).toThrow(/no message 999/);

    const stale = h.server.injectCallbackQuery({ message: prompt, data: 'old-button', from: { id: 42, first_name: 'Ann' } });
    expect(stale.callback_query).toMatchObject({ data: 'old-button', from: { id: 42, first_name: 'Ann' }, message: { message_id: prompt.message_id } });
    expect(h.server.callbackQueries()).toEqual([expect.objectContaining({ id: stale.callback_query!.id, answered: false })]);

    const kinds: string[] = [];
    bot.on('my_chat_member', () => {
      kinds.push('my_chat_member');
    });
    bot.on('message:text', () => {
      kinds.push('message');
    });
    bot.on('callback_query:data', () => {
      kinds.push('callback_query');
    });
    h.server.injectUpdate({
      my_chat_member: {
        chat: { id: 42, type: 'private', first_name: 'Ann' }, from: { id: 42, is_bot: false, first_name: 'Ann' }, date: 0,
        old_chat_member: { status: 'member', user: h.server.botUser }, new_chat_member: { status: 'kicked', user: h.server.botUser, until_date: 0 },
      },
    });
    const running = bot.start({ timeout: 1 });
    await h.server.waitFor(() => kinds.length === 3);
    expect(kinds).toEqual(['message', 'callback_query', 'my_chat_member']);
    await bot.stop();
    await running;
  });

  it('accepts topics registered by the test', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat({ id: -1009, type: 'supergroup', is_forum: true });
    h.server.addForumTopic(-1009, 3);
    const sent = await h.bot().api.sendMessage(-1009, 'x', { message_thread_id: 3 });
    expect(sent).toMatchObject({ message_thread_id: 3, is_topic_message: true });
  });
});

describe('forced faults', () => {
  it('fails the next N calls of a method for one chat with the given error', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    h.server.registerChat(43);
    const bot = h.bot();
    h.server.failNext({ method: 'sendMessage', chatId: 42, times: 2, with: tgErrors.tooManyRequests(7) });
    const e1 = await grammyError(bot.api.sendMessage(42, 'a'));
    expect(e1.parameters.retry_after).toBe(7);
    await bot.api.sendMessage(43, 'other chat is unaffected');
    await grammyError(bot.api.sendMessage(42, 'b'));
    await bot.api.sendMessage(42, 'c');
    expect(h.server.rateLimitedCount(42)).toBe(2);
    expect(h.server.callsTo('sendMessage').map((c) => c.forced)).toEqual([true, false, true, false]);
    expect(h.server.chatState(42).messages.map((m) => m.text)).toEqual(['c']);
  });

  it('can answer 5xx JSON, a raw proxy error page, or drop the connection', async () => {
    h = await startHarness({ rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    h.server.failNext({ method: 'editMessageText', with: tgErrors.serverError(502, 'Bad Gateway') });
    h.server.failNext({ method: 'sendMessage', with: { httpStatus: 502, body: '<html>502 Bad Gateway</html>' } });
    h.server.failNext({ method: 'deleteMessage', with: 'disconnect' });

    const e5xx = await grammyError(bot.api.editMessageText(42, 1, 'x'));
    expect([e5xx.error_code, e5xx.description]).toEqual([502, 'Bad Gateway']);
    expect(await errorOf(bot.api.sendMessage(42, 'x'))).toBeInstanceOf(HttpError);
    expect(await errorOf(bot.api.deleteMessage(42, 1))).toBeInstanceOf(HttpError);
    const sent = await bot.api.sendMessage(42, 'after the storm');
    expect(sent.text).toBe('after the storm');

    h.server.failNext({ method: 'sendMessage', times: 5, with: tgErrors.blockedByUser() });
    h.server.clearFaults();
    await bot.api.sendMessage(42, 'faults cleared');
  });
});

describe('flood control across chats', () => {
  it('limits a group to 20 messages a minute and the bot to 30 a second', async () => {
    const clock = new ManualClock();
    h = await startHarness({ clock, rateLimits: { perChat: { burst: 100, rate: 100, perMs: 1000 } } });
    const bot = h.bot();
    h.server.registerChat({ id: -300, type: 'group' });
    for (let i = 0; i < 20; i++) await bot.api.sendMessage(-300, `m${i}`);
    const group = await grammyError(bot.api.sendMessage(-300, 'one too many'));
    expect(group.parameters.retry_after).toBe(3);

    clock.advance(60_000);
    for (let i = 0; i < 30; i++) h.server.registerChat(1000 + i);
    for (let i = 0; i < 30; i++) await bot.api.sendMessage(1000 + i, 'x');
    h.server.registerChat(2000);
    const botWide = await grammyError(bot.api.sendMessage(2000, 'x'));
    expect(botWide.error_code).toBe(429);
    expect(h.server.rateLimitedCount()).toBe(2);

    h.server.setRateLimitsEnabled(false);
    for (let i = 0; i < 40; i++) await bot.api.sendMessage(2000, 'unlimited');
    expect(h.server.chatState(2000).messages).toHaveLength(40);

    h.server.setRateLimitsEnabled(true);
    h.server.configureRateLimits({ perChat: { burst: 1, rate: 1, perMs: 5000 } });
    await bot.api.sendMessage(2000, 'one');
    expect((await grammyError(bot.api.sendMessage(2000, 'two'))).parameters.retry_after).toBe(5);
  });
});

describe('protocol edges', () => {
  it('answers a wrong token with 401 and an unknown method with 404', async () => {
    h = await startHarness();
    const res = await fetch(`${h.server.apiRoot}/bot1:wrong/getMe`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const unknown = await h.raw('launchRockets');
    expect(unknown).toMatchObject({ status: 404, ok: false, error_code: 404, description: 'Not Found' });
    expect((await h.raw('GETME', {}, 'query')).result).toMatchObject({ id: 123456789, is_bot: true, username: 'fake_test_bot' });
  });

  it('names a missing or malformed parameter', async () => {
    h = await startHarness();
    expect((await h.raw('sendMessage', { text: 'x' })).description).toBe('Bad Request: chat_id is empty');
    expect((await h.raw('getUpdates', { limit: 'many' }, 'form')).description).toMatch(/^Bad Request: invalid limit/);
    h.server.registerChat(42);
    const md = await grammyError(h.bot().api.sendMessage(42, 'v1.2', { parse_mode: 'MarkdownV2' }));
    expect(md.description).toBe(`Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'`);
  });

  it('can skip keeping the call log for long runs while still counting', async () => {
    h = await startHarness({ recordCalls: false, rateLimits: false });
    h.server.registerChat(42);
    const bot = h.bot();
    await bot.api.sendMessage(42, 'a');
    await bot.api.sendMessage(42, 'b');
    expect(h.server.calls).toEqual([]);
    expect(h.server.callCount('sendMessage')).toBe(2);
  });

  it('rejects waitFor with context when the condition never holds', async () => {
    h = await startHarness();
    await expect(h.server.waitFor(() => false, 50, 'never')).rejects.toThrow(/waitFor\(never\) timed out after 50 ms/);
  });

  it('exposes GrammyError for each failed call', async () => {
    h = await startHarness();
    expect(await errorOf(h.bot().api.sendMessage(1, 'x'))).toBeInstanceOf(GrammyError);
  });
});
