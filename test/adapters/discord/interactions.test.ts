/**
 * Slash commands and buttons on the fake Discord platform, through the adapter: a command is acknowledged
 * with a deferred reply before the gateway sees it; `/ask` in a channel becomes a conversation in a thread
 * opened on its reply, which the first post fills and later edits update through the interaction webhook;
 * in a DM or a thread it answers in place; an unclaimed reply is confirmed or removed once handled. A click
 * is an ActionEvent acknowledged by `answer()` (deferred update, or an ephemeral notice), or anyway when
 * the gateway is slow.
 */
import type { ActionEvent, InboundMessage, MessageRef } from '../../../src/adapters/contract/messages';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { DiscordThreadRef } from '../../../src/adapters/contract/thread-ref';
import type { DiscordAdapter, DiscordAdapterDeps } from '../../../src/adapters/discord/adapter';
import { FakeClock } from '../../helpers/fake-clock';
import { RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const content = (text: string, buttons?: OutboundContent['buttons']): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0, ...(buttons ? { buttons } : {}) });

async function started(deps: DiscordAdapterDeps = {}, handler = new RecordingHandler()): Promise<{ a: DiscordAdapter; handler: RecordingHandler }> {
  h = await startDiscordHarness();
  const a = h.adapter({}, { settleMs: 60_000, ...deps });
  await a.start(handler);
  return { a, handler };
}

const nth = (handler: RecordingHandler, n: number, label: string): Promise<InboundMessage> => handler.waitFor(() => handler.messages[n - 1], label);

describe('slash commands', () => {
  it('defers /ask at once, plans a thread on the reply, fills the reply with the first post and edits it through the webhook', async () => {
    const { a, handler } = await started();
    const cmd = h.server.slashCommand('general', 'alice', 'ask', { prompt: 'What is the plan?' });
    const m = await nth(handler, 1, 'the /ask');
    const reply = cmd.view().response!;
    expect(cmd.view()).toMatchObject({ acked: true, ackType: 5 });
    expect(reply.loading).toBe(true);
    expect(m).toMatchObject({
      text: 'What is the plan?', mentionsBot: true, isDM: false, eventId: cmd.id, messageId: reply.id,
      thread: { guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: reply.id },
    });

    await a.typing(m.thread);
    expect(h.server.channelView('general').botTyping).toBe(true);
    expect(h.server.channelView('general').threads).toEqual([]);
    const first = await a.post(m.thread, content('Working on it…', [{ label: 'Stop', payload: 's:t1', style: 'danger' }]));
    expect(first.messageId).toBe(reply.id);
    expect(h.server.messageView(reply.id)).toMatchObject({ content: 'Working on it…', loading: false, buttons: [[{ label: 'Stop', customId: 's:t1', style: 4, disabled: false }]] });
    expect(h.server.channelView('general').threads).toEqual([{ id: reply.id, name: 'What is the plan?', archived: false, starterMessageId: reply.id }]);

    await a.edit(first, content('The plan: ship it.'));
    expect(h.server.messageView(reply.id)).toMatchObject({ content: 'The plan: ship it.', buttons: [] });
    expect(h.server.callsTo('editWebhookMessage')).toHaveLength(2);
    expect(h.server.callsTo('editMessage')).toHaveLength(0);
    const second = await a.post(m.thread, content('More in the thread.'));
    expect(h.server.messageView(second.messageId).channelId).toBe(reply.id);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: The plan: ship it.']);
  });

  it('edits a filled reply through the channel once its interaction token is near its end, or dies early', async () => {
    const clock = new FakeClock(Date.now());
    h = await startDiscordHarness({ clock });
    const handler = new RecordingHandler();
    const a = h.adapter({}, { clock, settleMs: 60_000 });
    await a.start(handler);
    h.server.slashCommand('general', 'alice', 'ask', { prompt: 'a long job' });
    const m = await nth(handler, 1, 'the /ask');
    const reply = await a.post(m.thread, content('started'));
    h.server.failNext({ route: 'editWebhookMessage', with: { code: 50027 } });
    await a.edit(reply, content('the token died early'));
    expect(h.server.messageView(reply.messageId).content).toBe('the token died early');
    expect(h.server.callsTo('editMessage').map((c) => c.path)).toEqual([`/channels/${h.server.channelId('general')}/messages/${reply.messageId}`]);

    h.server.slashCommand('general', 'bob', 'ask', { prompt: 'another long job' });
    const m2 = await nth(handler, 2, 'the second /ask');
    const reply2 = await a.post(m2.thread, content('started'));
    await clock.advance(14 * 60_000);
    await a.edit(reply2, content('fourteen minutes later'));
    expect(h.server.messageView(reply2.messageId).content).toBe('fourteen minutes later');
    expect(h.server.callsTo('editMessage')).toHaveLength(2);
    expect(h.server.callsTo('editWebhookMessage').filter((c) => c.status === 200)).toHaveLength(2);
  });

  it('answers /ask in place in a DM and inside a thread', async () => {
    const { a, handler } = await started();
    const dm = h.server.dmSlashCommand('bob', 'ask', { prompt: 'hi in private' });
    const inDm = await nth(handler, 1, 'the DM /ask');
    expect(inDm).toMatchObject({ isDM: true, thread: { guild: null, channel: h.server.dmChannelId('bob'), thread: null } });
    await a.post(inDm.thread, content('Private answer.'));
    expect(dm.view().response?.content).toBe('Private answer.');

    const starter = h.server.message('general', 'bob', 'a topic');
    const thread = h.server.startThread('general', 'bob', 'topic', { fromMessage: starter.id });
    const inThread = h.server.slashCommand(thread, 'bob', 'ask', { prompt: 'in the thread' });
    const m = await nth(handler, 2, 'the thread /ask');
    expect(m.thread).toEqual({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread });
    await a.post(m.thread, content('Answered here.'));
    expect(inThread.view().response).toMatchObject({ channelId: thread, content: 'Answered here.' });
    expect(h.server.channelView('general').threads).toHaveLength(1);
  });

  it('answers an /ask without a question privately, without bothering the gateway', async () => {
    const { handler } = await started();
    const cmd = h.server.slashCommand('general', 'alice', 'ask', { prompt: '   ' });
    const acked = await cmd.waitForAck();
    expect(acked.ackType).toBe(4);
    expect(h.server.ephemeralReplies('alice').map((m) => m.content)).toEqual(['Ask me something: `/ask prompt:` followed by your question.']);
    h.server.dm('alice', 'next');
    await nth(handler, 1, 'the next message');
    expect(handler.messages.map((m) => m.text)).toEqual(['next']);
  });

  it('maps /new, /stop, /mode and /status to the chat commands the gateway parses', async () => {
    const { handler } = await started();
    const thread = h.server.startThread('general', 'alice', 'talk');
    h.server.slashCommand(thread, 'alice', 'new');
    h.server.slashCommand(thread, 'alice', 'stop');
    h.server.slashCommand(thread, 'alice', 'mode', { mode: 'always-ask' });
    h.server.slashCommand(thread, 'alice', 'mode');
    h.server.slashCommand(thread, 'alice', 'status');
    await nth(handler, 5, 'five commands');
    expect(handler.messages.map((m) => m.text)).toEqual(['/new', '/stop', '/mode always-ask', '/mode', '/status']);
    expect(new Set(handler.messages.map((m) => (m.thread as DiscordThreadRef).thread))).toEqual(new Set([thread]));
  });

  it('settles a reply nothing claimed: confirmed after a silent success, removed after a silent refusal', async () => {
    const handler = new RecordingHandler();
    let act: ((m: InboundMessage) => Promise<void>) | undefined;
    handler.onMessageHook = async (m) => act?.(m);
    const { a } = await started({ settleMs: 0 }, handler);
    const thread = h.server.startThread('general', 'alice', 'work');
    const mine = await a.post({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread }, content('a live reply'));
    act = async (m) => a.edit({ thread: m.thread, messageId: mine.messageId }, content('⏹️ aborted by user'));
    const stop = h.server.slashCommand(thread, 'alice', 'stop');
    await stop.waitForResponse((r) => r.content === '⏹️ Stopped.');
    act = async () => undefined;
    const ignored = h.server.slashCommand(thread, 'alice', 'status');
    await h.server.waitFor(() => ignored.view().response?.deleted || undefined, 5000, 'the silent reply removed');
    act = undefined;
    const asked = h.server.slashCommand('general', 'alice', 'ask', { prompt: 'ignored' });
    await h.server.waitFor(() => asked.view().response?.deleted || undefined, 5000, 'the unclaimed /ask reply removed');
  });

  it('keeps an unclaimed /ask reply the gateway is working on while its token lives, then removes it', async () => {
    const clock = new FakeClock(Date.now());
    h = await startDiscordHarness({ clock });
    const handler = new RecordingHandler();
    handler.onMessageHook = async (m) => a.typing(m.thread);
    const a = h.adapter({}, { clock, settleMs: 3_000 });
    await a.start(handler);
    const cmd = h.server.slashCommand('general', 'alice', 'ask', { prompt: 'queued behind another task' });
    await nth(handler, 1, 'the /ask');
    await clock.advance(10_000);
    expect(cmd.view().response).toMatchObject({ loading: true, deleted: false });
    await clock.advance(14 * 60_000);
    await h.server.waitFor(() => cmd.view().response?.deleted || undefined, 5000, 'the reply removed before its token dies');
  });

  it('fills a still-deferred reply with the reaction the gateway gives a steered message', async () => {
    const { a, handler } = await started();
    const thread = h.server.startThread('general', 'alice', 'busy');
    const cmd = h.server.slashCommand(thread, 'alice', 'ask', { prompt: 'one more thing' });
    const m = await nth(handler, 1, 'the /ask');
    await a.react({ thread: m.thread, messageId: m.messageId }, '👀');
    expect(cmd.view().response).toMatchObject({ content: '👀', loading: false });
  });
});

describe('buttons', () => {
  async function card(a: DiscordAdapter, thread: DiscordThreadRef): Promise<MessageRef> {
    return a.post(thread, content('✋ **Approval needed**: `exec_command`', [
      { label: 'Allow', payload: 'a:ap1:allow', style: 'primary' },
      { label: 'Deny', payload: 'a:ap1:deny', style: 'danger' },
      { label: 'Allow for this session', payload: 'a:ap1:session', style: 'secondary' },
    ]));
  }
  const general = (): DiscordThreadRef => ({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: null });

  it('delivers a click as an ActionEvent; answer() acknowledges it with a deferred update, and the card is edited', async () => {
    const { a, handler } = await started();
    const ref = await card(a, general());
    expect(h.server.messageView(ref.messageId).buttons[0].map((b) => b.label)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    const click = h.server.clickButton(ref.messageId, 'a:ap1:allow', 'alice');
    const ev: ActionEvent = await handler.waitFor(() => handler.actions[0], 'the click');
    expect(ev).toMatchObject({ payload: 'a:ap1:allow', eventId: click.id, message: { messageId: ref.messageId }, user: { id: h.server.user('alice').id, name: 'alice' }, thread: general() });
    await ev.answer();
    await ev.answer();
    expect(click.view()).toMatchObject({ ackType: 6 });
    expect(click.view().callbacks).toHaveLength(1);
    await a.edit(ref, content('✅ **Allowed** by alice: `exec_command`'));
    expect(h.server.messageView(ref.messageId)).toMatchObject({ content: '✅ **Allowed** by alice: `exec_command`', buttons: [] });
  });

  it('answers with an ephemeral notice only the clicker sees', async () => {
    const { a, handler } = await started();
    const ref = await card(a, general());
    const click = h.server.clickButton(ref.messageId, 'a:ap1:deny', 'bob');
    const ev = await handler.waitFor(() => handler.actions[0], 'the click');
    await ev.answer({ text: 'This approval is not yours to decide.', alert: true });
    expect(click.view().ackType).toBe(4);
    expect(h.server.ephemeralReplies('bob').map((m) => m.content)).toEqual(['This approval is not yours to decide.']);
    expect(h.server.ephemeralReplies('alice')).toEqual([]);
    expect(h.server.messageView(ref.messageId).buttons[0]).toHaveLength(3);
  });

  it('acknowledges a click the gateway is slow to answer, and a later notice becomes an ephemeral follow-up', async () => {
    const handler = new RecordingHandler();
    let clicked!: (ev: ActionEvent) => void;
    const seen = new Promise<ActionEvent>((r) => (clicked = r));
    handler.onActionHook = async (ev) => clicked(ev);
    const { a } = await started({ ackSafetyMs: 20 }, handler);
    const ref = await card(a, general());
    const click = h.server.clickButton(ref.messageId, 'a:ap1:allow', 'bob');
    const ev = await seen;
    expect((await click.waitForAck()).ackType).toBe(6);
    await ev.answer({ text: 'This approval is not yours to decide.' });
    expect(click.view().followups.map((f) => ({ content: f.content, ephemeral: f.ephemeral }))).toEqual([{ content: 'This approval is not yours to decide.', ephemeral: true }]);
    expect(h.server.ephemeralReplies('bob').map((m) => m.content)).toEqual(['This approval is not yours to decide.']);
  });

  it('names the thread of a button on a thread starter (an /ask reply), so notices land in the conversation', async () => {
    const { a, handler } = await started();
    h.server.slashCommand('general', 'alice', 'ask', { prompt: 'long task' });
    const m = await nth(handler, 1, 'the /ask');
    const reply = await a.post(m.thread, content('working', [{ label: 'Stop', payload: 's:t9', style: 'danger' }]));
    h.server.clickButton(reply.messageId, 's:t9', 'alice');
    const ev = await handler.waitFor(() => handler.actions[0], 'the Stop click');
    expect(ev.thread).toEqual(m.thread);
    expect(ev.payload).toBe('s:t9');
    await ev.answer({ text: 'That task has already finished.' });
  });
});
