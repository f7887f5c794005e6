/**
 * The Telegram adapter end to end: the real gateway process (built CLI, its own PENGUIN_HOME) talks to the
 * fake Bot API server (real long polling, flood control, Bot API errors) and the fake OpenAI server, set up
 * through the public environment contract only. Covers streamed DM replies, approval cards and who may
 * press them, /stop, /new, topics and group mentions, 429 storms, restarts mid-Task (crash and SIGTERM),
 * pairing, and photos / documents reaching the model.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallRecord } from '../fakes/telegram-call-log';
import { tgErrors } from '../fakes/telegram-errors';
import type { MessageView } from '../fakes/telegram-store';
import { finishChunk, stream, textChunks, turn, usageChunk, type RecordedRequest } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { isInlineKeyboard } from '../fakes/telegram-markup';
import { buttonLabels, DM_USER, hasButton, isCard, isFinalReply, openWorld, splitReply, type World, type WorldOptions } from './telegram-world';

const BOT = '@fake_test_bot';
const GROUP = -1001234567890;
const FORUM = -1009876543210;

let w: World | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function world(o: WorldOptions = {}): Promise<World> {
  w = await openWorld(o);
  await w.start();
  return w;
}

/** A model turn streamed in small pieces, `delayMs` apart. */
function slowTurn(text: string, delayMs: number, size = 8) {
  return stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk({ prompt_tokens: 10, completion_tokens: 5 })], { chunkDelayMs: delayMs });
}

const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });

/** Requests the sessions made (the title calls carry no tools). */
const tooled = (wd: World): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);

/** The tool message the model got back for `callId`. */
function toolResult(req: RecordedRequest, callId: string): string {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === callId);
  if (!m) throw new Error(`no tool message for ${callId} in ${JSON.stringify(req.body.messages)}`);
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** The finished reply (no buttons left, not a card) whose text matches. */
function waitForReply(wd: World, chat: number, text: RegExp, label: string, ms = 10_000): Promise<MessageView> {
  return wd.tg.waitFor(() => wd.tg.botMessages(chat).find((m) => isFinalReply(m) && text.test(m.text ?? '')), ms, label);
}

/** The finished reply whose answer starts with `answer` (tool lines may stand above it). */
function waitForAnswer(wd: World, chat: number, answer: string, label = 'final reply', ms = 10_000): Promise<MessageView> {
  return wd.tg.waitFor(() => wd.tg.botMessages(chat).find((m) => isFinalReply(m) && splitReply(m.text ?? '').answer.startsWith(answer.slice(0, 40))), ms, label);
}

function waitForCard(wd: World, chat: number): Promise<MessageView> {
  return wd.tg.waitFor(() => wd.tg.botMessages(chat).find((m) => hasButton(m, 'Allow')), 10_000, 'approval card');
}

/** Every call to a chat (typing included), in arrival order. */
const chatCalls = (wd: World, chat: number): CallRecord[] => wd.tg.calls.filter((c) => c.chatId === chat).sort((a, b) => a.at - b.at || a.seq - b.seq);

/** The approval decisions in the only session's trace, read through the admin API. */
async function tracedDecisions(wd: World): Promise<Array<{ decision: string; tool_call_id: string }>> {
  const { body } = await wd.admin('/api/sessions');
  const [session] = body.sessions as Array<{ session_id: string }>;
  const transcript = await wd.admin(`/api/sessions/${session.session_id}/messages`);
  return (transcript.body.messages as Array<{ payload: { type: string; decision: string; tool_call_id: string } }>)
    .filter((m) => m.payload?.type === 'approval_decision')
    .map((m) => ({ decision: m.payload.decision, tool_call_id: m.payload.tool_call_id }));
}

describe('Telegram end to end (real gateway process)', () => {
  it('streams a DM reply as drafts after a typing indicator, and the final answer is the model text exactly', async () => {
    const wd = await world();
    const answer = 'Hello there! This answer arrives in small pieces, one after another.\n\nIt has a second paragraph too.';
    wd.model.enqueue(slowTurn(answer, 30, 6));
    wd.tg.injectMessage({ chat: DM_USER, text: 'say hello' });
    const final = await waitForAnswer(wd, DM_USER, answer);

    const calls = chatCalls(wd, DM_USER);
    expect(calls[0]).toMatchObject({ method: 'sendChatAction', params: { action: 'typing' } });
    const drafts = wd.tg.callsTo('sendMessageDraft').filter((c) => c.chatId === DM_USER && c.ok);
    const finalSend = wd.tg.callsTo('sendMessage').find((c) => c.chatId === DM_USER)!;
    expect(drafts.every((d) => d.at <= finalSend.at)).toBe(true);
    const draftTexts = [...new Set(drafts.map((d) => String(d.params.text)))];
    expect(draftTexts.filter((t) => t.includes('Hello')).length).toBeGreaterThanOrEqual(2);

    // the finished reply is exactly the answer: the status line was live-only
    expect(final.text).toBe(answer);
    expect(buttonLabels(final)).toEqual([]);
    // one reply, nothing else posted into the chat
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
    expect(tooled(wd)).toHaveLength(1);
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toContain('say hello');
  });

  it('asks before exec_command; Allow is answered at once, runs the tool and the answer continues', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ toolCalls: [execCall('call_allow', 'echo e2e-marker-$((6*7))')] }), turn({ text: 'The command printed the marker.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'run the marker command' });
    const card = await waitForCard(wd, DM_USER);
    expect(buttonLabels(card)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect(card.text).toContain('exec_command');
    expect(card.text).toContain('echo e2e-marker-$((6*7))');

    const press = wd.tg.clickButton(DM_USER, card.message_id, 'Allow');
    const final = await waitForAnswer(wd, DM_USER, 'The command printed the marker.');

    const query = wd.tg.callbackQuery(press.callback_query!.id)!;
    expect(query.answered).toBe(true);
    expect(query.answer?.text).toBeUndefined();
    // answered before anything else the press caused: the card edit and the model's next request
    const answeredAt = wd.tg.callsTo('answerCallbackQuery')[0];
    const cardEdit = wd.tg.callsTo('editMessageText').find((c) => Number(c.params.message_id) === card.message_id)!;
    expect(answeredAt.seq).toBeLessThan(cardEdit.seq);

    expect(tooled(wd)).toHaveLength(2);
    expect(toolResult(tooled(wd)[1], 'call_allow')).toContain('e2e-marker-42');
    const after = wd.tg.botMessages(DM_USER).find((m) => m.message_id === card.message_id)!;
    expect(after.text).toMatch(/^✅ Allowed by .+: exec_command/);
    expect(buttonLabels(after)).toEqual([]);

    const reply = splitReply(final.text!);
    expect(reply.answer).toBe('The command printed the marker.');
    expect(reply.toolLines).toEqual([expect.stringMatching(/^✅ exec_command: print a marker/)]);
    expect(await tracedDecisions(wd)).toEqual([{ decision: 'allow', tool_call_id: expect.any(String) }]);
  });

  it('Deny gives the model the denial and edits the card', async () => {
    const wd = await world();
    const marker = join(wd.dir, 'denied-command-ran');
    wd.model.enqueue(turn({ toolCalls: [execCall('call_deny', `touch ${marker}`)] }), turn({ text: 'Understood, I will not run it.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'run something' });
    const card = await waitForCard(wd, DM_USER);
    wd.tg.clickButton(DM_USER, card.message_id, 'Deny');
    const final = await waitForAnswer(wd, DM_USER, 'Understood, I will not run it.');

    expect(toolResult(tooled(wd)[1], 'call_deny')).toContain('Tool call denied by user.');
    expect(existsSync(marker)).toBe(false);
    const after = wd.tg.botMessages(DM_USER).find((m) => m.message_id === card.message_id)!;
    expect(after.text).toMatch(/^⛔ Denied by .+: exec_command/);
    expect(buttonLabels(after)).toEqual([]);
    expect(splitReply(final.text!).answer).toBe('Understood, I will not run it.');
    expect(splitReply(final.text!).toolLines).toEqual([expect.stringMatching(/^⛔ exec_command: print a marker — denied/)]);
    expect(await tracedDecisions(wd)).toEqual([{ decision: 'deny', tool_call_id: expect.any(String) }]);
  });

  it('"Allow for this session" runs the call and every later exec_command of the session without asking', async () => {
    const wd = await world();
    wd.model.enqueue(
      turn({ toolCalls: [execCall('call_first', 'echo first-run')] }),
      turn({ toolCalls: [execCall('call_second', 'echo second-run')] }),
      turn({ text: 'Both commands ran.' }),
    );
    wd.tg.injectMessage({ chat: DM_USER, text: 'run two commands' });
    const card = await waitForCard(wd, DM_USER);
    wd.tg.clickButton(DM_USER, card.message_id, 'Allow for this session');
    const final = await waitForAnswer(wd, DM_USER, 'Both commands ran.');

    expect(wd.tg.botMessages(DM_USER).filter(isCard)).toHaveLength(1);
    expect(wd.tg.botMessages(DM_USER).find((m) => m.message_id === card.message_id)!.text).toMatch(/^✅ Allowed for this session by .+: exec_command/);
    expect(toolResult(tooled(wd)[1], 'call_first')).toContain('first-run');
    expect(toolResult(tooled(wd)[2], 'call_second')).toContain('second-run');
    expect(splitReply(final.text!).answer).toBe('Both commands ran.');
  });

  it('expires an unanswered card after approvals.timeout_ms: the card says so and the model gets a denial', async () => {
    const wd = await world({ config: { approvals: { timeout_ms: 300 } } });
    wd.model.enqueue(turn({ toolCalls: [execCall('call_late', 'echo too-late')] }), turn({ text: 'Nobody answered, so I stopped.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'run it if you may' });
    const card = await waitForCard(wd, DM_USER);
    const final = await waitForAnswer(wd, DM_USER, 'Nobody answered, so I stopped.');

    const after = wd.tg.botMessages(DM_USER).find((m) => m.message_id === card.message_id)!;
    expect(after.text).toMatch(/^⌛ Expired: exec_command/);
    expect(buttonLabels(after)).toEqual([]);
    expect(toolResult(tooled(wd)[1], 'call_late')).toContain('denied');
    expect(splitReply(final.text!).answer).toBe('Nobody answered, so I stopped.');
  });

  it('refuses a stranger pressing an approval button in a group; the approval stays pending', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ toolCalls: [execCall('call_group', 'echo group-marker')] }), turn({ text: 'Done in the group.' }));
    wd.tg.injectMessage({ chat: { id: GROUP, type: 'supergroup', title: 'Team' }, from: DM_USER, text: `${BOT} please run it` });
    const card = await waitForCard(wd, GROUP);

    const press = wd.tg.clickButton(GROUP, card.message_id, 'Allow', { id: 77, first_name: 'Mallory' });
    const answered = await wd.tg.waitFor(() => wd.tg.callbackQuery(press.callback_query!.id)?.answered && wd.tg.callbackQuery(press.callback_query!.id), 5000, 'refusal');
    expect(answered.answer).toMatchObject({ text: 'This approval is not yours to decide.', show_alert: true });

    const pending = await wd.admin('/api/approvals?state=pending');
    expect(pending.status).toBe(200);
    expect(pending.body.approvals).toHaveLength(1);
    expect(buttonLabels(wd.tg.botMessages(GROUP).find((m) => m.message_id === card.message_id)!)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect(tooled(wd)).toHaveLength(1);

    // the requester can still decide
    wd.tg.clickButton(GROUP, card.message_id, 'Allow', DM_USER);
    const final = await waitForAnswer(wd, GROUP, 'Done in the group.');
    expect(splitReply(final.text!).answer).toBe('Done in the group.');
    expect(toolResult(tooled(wd)[1], 'call_group')).toContain('group-marker');
  });

  it('/stop mid-stream aborts the Task and the reply says so', async () => {
    const wd = await world();
    const long = 'This is a long answer that keeps going for quite a while, word after word. '.repeat(8);
    wd.model.enqueue(slowTurn(long, 40));
    wd.tg.injectMessage({ chat: DM_USER, text: 'talk for a while' });
    await wd.tg.waitFor(() => wd.tg.callsTo('sendMessageDraft').some((c) => String(c.params.text).includes('long answer')), 10_000, 'streaming draft');
    wd.tg.injectMessage({ chat: DM_USER, text: '/stop' });
    const final = await waitForReply(wd, DM_USER, /^⛔ aborted/, 'aborted reply');

    const reply = splitReply(final.text!);
    expect(reply.status).toBe('⛔ aborted: aborted by user');
    expect(reply.answer.length).toBeGreaterThan(0);
    expect(reply.answer.length).toBeLessThan(long.trimEnd().length);
    expect(long.startsWith(reply.answer)).toBe(true);
    expect(buttonLabels(final)).toEqual([]);
    expect(wd.tg.botMessages(DM_USER).map((m) => m.text)).not.toContain('Nothing is running.');
  });

  it('/new starts a new session and moves the binding', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'First session answer.' }), turn({ text: 'Second session answer.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'first question' });
    await waitForReply(wd, DM_USER, /First session answer/, 'first reply');
    wd.tg.injectMessage({ chat: DM_USER, text: '/new' });
    await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => m.text?.startsWith('🆕 New session')), 5000, '/new notice');
    wd.tg.injectMessage({ chat: DM_USER, text: 'second question' });
    await waitForReply(wd, DM_USER, /Second session answer/, 'second reply');

    const { body } = await wd.admin('/api/sessions');
    const sessions = body.sessions as Array<{ session_id: string; binding_key: string; created_at: number }>;
    expect(sessions).toHaveLength(2);
    const [older, newer] = [...sessions].sort((a, b) => a.created_at - b.created_at);
    expect(older.session_id).not.toBe(newer.session_id);
    expect((await wd.admin(`/api/sessions/${older.session_id}`)).body.bindings).toEqual([]);
    expect((await wd.admin(`/api/sessions/${newer.session_id}`)).body.bindings).toEqual([`telegram:${DM_USER}:-`]);
    // the second session starts from scratch: the model does not see the first question
    const second = JSON.stringify(tooled(wd)[1].body.messages);
    expect(second).toContain('second question');
    expect(second).not.toContain('first question');
  });

  it('gives a forum topic and a group mention their own sessions and ignores unaddressed group messages', async () => {
    const wd = await world();
    const forum = { id: FORUM, type: 'supergroup' as const, title: 'Forum', is_forum: true };
    wd.model.enqueue(turn({ text: 'Answer in the topic.' }), turn({ text: 'Answer in General.' }));
    wd.tg.injectMessage({ chat: forum, from: DM_USER, message_thread_id: 7, text: `${BOT} question in topic seven` });
    const inTopic = await waitForReply(wd, FORUM, /Answer in the topic/, 'topic reply');
    expect(inTopic.message_thread_id).toBe(7);

    wd.tg.injectMessage({ chat: forum, from: 55, text: 'just chatting among humans' });
    wd.tg.injectMessage({ chat: forum, from: DM_USER, text: `${BOT} question in general` });
    const inGeneral = await waitForReply(wd, FORUM, /Answer in General/, 'general reply');
    expect(inGeneral.message_thread_id).toBeUndefined();

    const { body } = await wd.admin('/api/sessions');
    const keys = (body.sessions as Array<{ binding_key: string }>).map((s) => s.binding_key).sort();
    expect(keys).toEqual([`telegram:${FORUM}:-`, `telegram:${FORUM}:7`]);
    expect(tooled(wd)).toHaveLength(2);
    expect(JSON.stringify(wd.model.requests.map((r) => r.body))).not.toContain('just chatting');
    expect(wd.tg.botMessages(FORUM)).toHaveLength(2);
  });

  it('loses no text in a forced 429 storm on sends and edits, and never calls the chat before retry_after has passed', async () => {
    const wd = await world({ config: { telegram: { draft_streaming: false } }, telegram: { rateLimits: {} } });
    const answer = 'Storm-proof answer: every sentence must arrive, edited in place while the storm lasts. '.repeat(2).trim();
    wd.model.enqueue(slowTurn(answer, 40, 6));
    wd.tg.failNext({ method: 'sendMessage', chatId: DM_USER, times: 1, with: tgErrors.tooManyRequests(1) });
    wd.tg.failNext({ method: 'editMessageText', chatId: DM_USER, times: 2, with: tgErrors.tooManyRequests(1) });
    wd.tg.injectMessage({ chat: DM_USER, text: 'weather the storm' });
    const final = await waitForAnswer(wd, DM_USER, answer, 'final reply', 20_000);

    expect(splitReply(final.text!).answer).toBe(answer);
    const forced = chatCalls(wd, DM_USER).filter((c) => c.forced);
    expect(forced.map((c) => `${c.method} ${c.status}`)).toEqual(['sendMessage 429', 'editMessageText 429', 'editMessageText 429']);
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
    expectRetryAfterObeyed(wd, DM_USER);

    // The dashboard's timeline of this reply names each step, the three 429s included, in order.
    const [live] = (await wd.admin('/api/deliveries?limit=1')).body.deliveries;
    const t = (await wd.admin(`/api/tasks/${live.task_id}/timeline`)).body;
    const kinds: string[] = t.events.map((e: { kind: string }) => e.kind);
    expect(kinds.slice(0, 2)).toEqual(['inbound', 'task_started']);
    expect(kinds.filter((k) => k === 'rate_limited')).toHaveLength(3);
    expect(kinds.indexOf('rate_limited')).toBeLessThan(kinds.indexOf('post'));
    expect(kinds.filter((k) => k === 'post')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'edit').length).toBeGreaterThan(0);
    expect(t.events.find((e: { kind: string }) => e.kind === 'rate_limited').detail).toMatch(/^post: .*\(asked to wait 1000 ms\)$/);
    expect(t.events.find((e: { kind: string }) => e.kind === 'post').delivery_id).toBe(live.id);
    expect(t.session_id).toBe(live.session_id);
  });

  it('obeys organic 429s from tight per-chat limits in a DM without drafts, and the final text is complete', async () => {
    const wd = await world({ config: { telegram: { draft_streaming: false } } });
    wd.tg.configureRateLimits({ perChat: { burst: 1, rate: 1, perMs: 1500 } });
    const answer = 'Tight limits, edited in place, all of it delivered in the end without a single word lost.';
    wd.model.enqueue(slowTurn(answer, 50, 5));
    wd.tg.injectMessage({ chat: DM_USER, text: 'go slowly' });
    const final = await waitForAnswer(wd, DM_USER, answer, 'final reply', 20_000);

    expect(splitReply(final.text!).answer).toBe(answer);
    expect(wd.tg.callsTo('sendMessageDraft')).toHaveLength(0);
    expect(wd.tg.rateLimitedCount(DM_USER)).toBeGreaterThan(0);
    expectRetryAfterObeyed(wd, DM_USER);
  });

  it('posts the live reply anew when someone deletes it mid-stream, and the final text is complete', async () => {
    const wd = await world({ config: { telegram: { draft_streaming: false } } });
    const answer = 'This reply survives its own deletion: the rest of it arrives in a new message. '.repeat(2).trim();
    wd.model.enqueue(slowTurn(answer, 40, 6));
    wd.tg.injectMessage({ chat: DM_USER, text: 'keep going' });
    const first = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => m.text?.includes('survives')), 10_000, 'live reply');
    // an admin (or the user) deletes the bot's message; Telegram then answers edits with "message to edit not found"
    wd.tg.store.chats.get(DM_USER)!.messages.delete(first.message_id);
    const final = await waitForAnswer(wd, DM_USER, answer, 'final reply', 15_000);

    expect(final.message_id).not.toBe(first.message_id);
    expect(splitReply(final.text!).answer).toBe(answer);
    expect(wd.tg.callsTo('editMessageText').some((c) => c.error?.description === 'Bad Request: message to edit not found')).toBe(true);
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
  });

  it('after a crash mid-Task, the next process offers Continue in the DM and runs the continuation', async () => {
    const wd = await world();
    wd.model.enqueue(slowTurn('Word after word, this reply will be cut off by a crash. '.repeat(10), 50));
    wd.tg.injectMessage({ chat: DM_USER, text: 'start a long job' });
    await wd.tg.waitFor(() => wd.tg.callsTo('sendMessageDraft').some((c) => String(c.params.text).includes('Word after word')), 10_000, 'streaming');
    await wd.gw.crash();

    wd.model.enqueue(turn({ text: 'Continuing after the crash.' }));
    await wd.start();
    const note = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => hasButton(m, 'Continue')), 10_000, 'Continue offer');
    // only a draft showed (it vanishes), so the note does not point at a reply above
    expect(note.text).toBe('⚠️ The gateway restarted before I could send my reply.');
    wd.tg.clickButton(DM_USER, note.message_id, 'Continue');
    const final = await waitForReply(wd, DM_USER, /Continuing after the crash/, 'continuation');
    expect(splitReply(final.text!).answer).toBe('Continuing after the crash.');
    expect(JSON.stringify(tooled(wd).at(-1)!.body.messages)).toContain('start a long job');
  });

  it('after a crash mid-Task in a group, the next process finalises the cut-off reply in place and offers Continue under it', async () => {
    const wd = await world();
    wd.model.enqueue(slowTurn('Group words keep flowing until the crash. '.repeat(10), 50));
    wd.tg.injectMessage({ chat: { id: GROUP, type: 'supergroup', title: 'Team' }, from: DM_USER, text: `${BOT} start a long job` });
    const live = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP).find((m) => m.text?.includes('Group words') && hasButton(m, 'Stop')), 10_000, 'streaming');
    // a second edit, so the gateway has surely recorded what the first one showed before it dies
    await wd.tg.waitFor(() => wd.tg.callsTo('editMessageText').filter((c) => c.ok && String(c.params.text).includes('Group words')).length >= 2, 10_000, 'two edits');
    const stopData = isInlineKeyboard(live.reply_markup) ? live.reply_markup.inline_keyboard.flat().find((b) => b.text === 'Stop')!.callback_data! : '';
    await wd.gw.crash();
    expect(wd.tg.botMessages(GROUP).find((m) => m.message_id === live.message_id)!.text).toMatch(/^✍️ writing/);

    wd.model.enqueue(turn({ text: 'Continuing in the group.' }));
    await wd.start();
    const note = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP).find((m) => hasButton(m, 'Continue')), 10_000, 'Continue offer');
    expect(note.text).toContain('the reply above is incomplete');
    const cut = wd.tg.botMessages(GROUP).find((m) => m.message_id === live.message_id)!;
    expect(cut.message_id).toBeLessThan(note.message_id);
    // the status line and the Stop button are gone; the text it showed stays, with a note
    expect(buttonLabels(cut)).toEqual([]);
    expect(cut.text).not.toContain('✍️');
    expect(cut.text).toMatch(/^Group words[\s\S]*\n\n⚠️ interrupted: the gateway restarted$/);
    // the dead process's Stop button, pressed from an old client, is harmless: that Task is gone
    const stale = wd.tg.injectCallbackQuery({ message: { message_id: cut.message_id, chat_id: GROUP }, data: stopData, from: DM_USER });
    const staleAnswer = await wd.tg.waitFor(() => wd.tg.callbackQuery(stale.callback_query!.id)?.answer, 5000, 'stale Stop answered');
    expect(staleAnswer.text).toBe('That task has already finished.');

    wd.tg.clickButton(GROUP, note.message_id, 'Continue', DM_USER);
    const final = await waitForReply(wd, GROUP, /Continuing in the group/, 'continuation');
    expect(splitReply(final.text!).answer).toBe('Continuing in the group.');
  });

  it('on SIGTERM mid-stream finalises the reply as aborted, and the next start offers Continue', async () => {
    const wd = await world();
    const long = 'Graceful shutdown will cut this sentence short. '.repeat(10);
    wd.model.enqueue(slowTurn(long, 50));
    wd.tg.injectMessage({ chat: DM_USER, text: 'start a long job' });
    await wd.tg.waitFor(() => wd.tg.callsTo('sendMessageDraft').some((c) => String(c.params.text).includes('Graceful')), 10_000, 'streaming');
    expect(await wd.gw.stop()).toBe(0);

    const cut = wd.tg.botMessages(DM_USER).find((m) => !isCard(m) && (m.text ?? '').includes('Graceful'))!;
    const reply = splitReply(cut.text!);
    expect(reply.status).toBe('⛔ aborted: gateway shutting down');
    expect(long.startsWith(reply.answer)).toBe(true);
    expect(buttonLabels(cut)).toEqual([]);

    wd.model.enqueue(turn({ text: 'Back after the restart.' }));
    await wd.start();
    const note = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => hasButton(m, 'Continue')), 10_000, 'Continue offer');
    wd.tg.clickButton(DM_USER, note.message_id, 'Continue');
    const final = await waitForReply(wd, DM_USER, /Back after the restart/, 'continuation');
    expect(splitReply(final.text!).answer).toBe('Back after the restart.');
  });

  it('pairs an unknown user under the default DM policy, then answers them', async () => {
    const wd = await world({ env: { PENGUIN_DM_POLICY: '', PENGUIN_ALLOW_USERS: '' } });
    const stranger = 5150;
    wd.tg.injectMessage({ chat: stranger, text: 'hello?' });
    const offer = await wd.tg.waitFor(() => wd.tg.botMessages(stranger).find((m) => m.text?.includes('pairing code')), 5000, 'pairing code');
    const code = /pairing code (\S+)/.exec(offer.text!)![1];
    expect(tooled(wd)).toHaveLength(0);

    const approved = await wd.admin(`/api/pairing/${code}/approve`, { method: 'POST' });
    expect(approved.status).toBe(200);
    await wd.tg.waitFor(() => wd.tg.botMessages(stranger).find((m) => m.text?.startsWith('✅ You are approved')), 5000, 'approval notice');

    wd.model.enqueue(turn({ text: 'Nice to meet you.' }));
    wd.tg.injectMessage({ chat: stranger, text: 'hello again' });
    const final = await waitForAnswer(wd, stranger, 'Nice to meet you.', 'answer');
    expect(splitReply(final.text!).answer).toBe('Nice to meet you.');
    expect(JSON.stringify(tooled(wd)[0].body.messages)).not.toContain('hello?');
  });

  it('tells a user approved from the CLI while the gateway runs, through the database', async () => {
    const wd = await world({ env: { PENGUIN_DM_POLICY: '', PENGUIN_ALLOW_USERS: '' } });
    const stranger = 5151;
    wd.tg.injectMessage({ chat: stranger, text: 'hello?' });
    const offer = await wd.tg.waitFor(() => wd.tg.botMessages(stranger).find((m) => m.text?.includes('pairing code')), 5000, 'pairing code');
    const code = /pairing code (\S+)/.exec(offer.text!)![1];
    expect(offer.text).not.toMatch(/dashboard/i);
    const approved = await wd.cli(['pairing', 'approve', code]);
    expect(approved).toMatchObject({ code: 0, stdout: expect.stringContaining(`approved ${code}`) });
    await wd.tg.waitFor(() => wd.tg.botMessages(stranger).find((m) => m.text?.startsWith('✅ You are approved')), 8000, 'approval notice');
    // Told once, however many polls pass.
    await new Promise((r) => setTimeout(r, 2500));
    expect(wd.tg.botMessages(stranger).filter((m) => m.text?.startsWith('✅'))).toHaveLength(1);
  });

  it('sends an inbound photo to a vision model as an image part and a document as an attached-file line', async () => {
    const wd = await world();
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]);
    wd.model.enqueue(turn({ text: 'A tiny picture.' }), turn({ text: 'Read your notes.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'what is this?', photo: { data: jpeg } });
    await waitForReply(wd, DM_USER, /A tiny picture/, 'photo answer');
    const photoReq = JSON.stringify(tooled(wd)[0].body.messages);
    expect(photoReq).toContain(`data:image/jpeg;base64,${jpeg.toString('base64')}`);
    expect(photoReq).toContain('"type":"image_url"');
    expect(photoReq).toContain('what is this?');

    wd.tg.injectMessage({ chat: DM_USER, text: 'read my notes', document: { data: 'remember the heron', fileName: 'notes.txt', mimeType: 'text/plain' } });
    await waitForReply(wd, DM_USER, /Read your notes/, 'document answer');
    const user = (tooled(wd)[1].body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').at(-1)!;
    const text = typeof user.content === 'string' ? user.content : JSON.stringify(user.content);
    const m = /read my notes\n\[attached file: ([^\]]+notes\.txt)\]/.exec(text);
    expect(m).not.toBeNull();
    expect(await readFile(m![1], 'utf8')).toBe('remember the heron');
  });
});

/**
 * Every 429 answered to `chat` was followed by silence towards that chat for its retry_after. Typing
 * indicators are left out: they are best-effort, not paced by the rate governor, and not what was refused.
 */
function expectRetryAfterObeyed(wd: World, chat: number): void {
  const calls = chatCalls(wd, chat).filter((c) => c.method !== 'sendChatAction');
  const limited = calls.filter((c) => c.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  for (const c of limited) {
    const until = c.at + (c.error!.parameters!.retry_after ?? 0) * 1000;
    const early = calls.filter((n) => n.seq !== c.seq && n.at > c.at && n.at < until).map((n) => `${n.method} ${n.at - c.at} ms after a 429`);
    expect(early).toEqual([]);
  }
}
