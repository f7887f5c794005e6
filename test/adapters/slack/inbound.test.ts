/**
 * What the Slack adapter hands the gateway, against the fake Slack over signed HTTP deliveries: mentions
 * (text without the mention, the thread as the session), the message echo of a mention left to
 * app_mention, DMs, follow-ups, text commands, files, display names (users.info, cached), and what it
 * drops: its own messages, other bots, edits, redeliveries, unthreaded chatter. Requests before start get 503.
 */
import type { InboundHandler } from '../../../src/adapters/contract/messages';
import { RecordingHandler, startSlackHarness, type SlackHarness } from './harness';

let h: SlackHarness;
afterEach(() => h.cleanup());

async function running(overrides = {}, options = {}) {
  h = await startSlackHarness({ rateLimits: false, ...options });
  const adapter = await h.httpAdapter(overrides);
  const rec = new RecordingHandler();
  await adapter.start(rec);
  return { adapter, rec };
}

/** Resolves once Slack got a 2xx for the delivery (the adapter has taken the event). */
const acked = async (d: { done: Promise<{ state: string }> }) => expect((await d.done).state).toBe('acked');

describe('messages', () => {
  it('maps a mention: text without the mention, the thread of the message, the sender named once', async () => {
    const { rec } = await running();
    const m = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'what is <https://example.com|this> &amp; that?', { alsoMessageEvent: true });
    const msg = await rec.waitFor(() => rec.messages[0], 'mention');
    expect(msg).toMatchObject({
      platform: 'slack', thread: { platform: 'slack', team: h.server.team.id, channel: h.server.defaultChannel, threadTs: m.ts },
      user: { id: h.server.defaultUser, name: 'alice', isBot: false }, text: 'what is this (https://example.com) & that?', mentionsBot: true, isDM: false,
      eventId: m.delivery.eventId, messageId: m.ts, attachments: [],
    });
    h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'again', { thread_ts: m.ts });
    await rec.waitFor(() => rec.messages[1], 'second mention');
    expect(rec.messages[1].thread).toEqual(msg.thread);
    expect(rec.messages).toHaveLength(2);
    expect(h.server.callsTo('users.info')).toHaveLength(1);
  });

  it('maps a DM (answered in its thread) and a follow-up in a channel thread; drops unthreaded chatter', async () => {
    const { rec } = await running();
    const dm = h.server.dmMessage(h.server.defaultUser, 'hello');
    const root = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'start');
    const chatter = h.server.message(h.server.defaultChannel, h.server.defaultUser, 'nothing for the bot');
    const follow = h.server.message(h.server.defaultChannel, h.server.defaultUser, 'and more', { thread_ts: root.ts });
    await Promise.all([dm, root, chatter, follow].map((x) => acked(x.delivery)));
    await rec.waitFor(() => rec.messages.length === 3, 'three messages');
    const byText = Object.fromEntries(rec.messages.map((m) => [m.text, m]));
    expect(byText.hello).toMatchObject({ isDM: true, mentionsBot: true, thread: { channel: dm.channel, threadTs: dm.ts } });
    expect(byText['and more']).toMatchObject({ isDM: false, mentionsBot: false, followUp: true, thread: { threadTs: root.ts } });
    expect(byText['nothing for the bot']).toBeUndefined();
  });

  it('without thread_follow_up, thread messages without a mention are not delivered', async () => {
    const { rec } = await running({ threadFollowUp: false });
    const root = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'start');
    await acked(root.delivery);
    await acked(h.server.message(h.server.defaultChannel, h.server.defaultUser, 'quiet', { thread_ts: root.ts }).delivery);
    await acked(h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'loud', { thread_ts: root.ts }).delivery);
    await rec.waitFor(() => rec.messages.length === 2, 'two mentions');
    expect(rec.messages.map((m) => m.text)).toEqual(['start', 'loud']);
  });

  it('turns command words into the gateway commands', async () => {
    const { rec } = await running();
    for (const t of ['new', 'Stop', 'status', 'help', 'mode read-only', 'mode', 'mode is a word', 'new ideas please']) {
      await acked(h.server.mention(h.server.defaultChannel, h.server.defaultUser, t).delivery);
    }
    await rec.waitFor(() => rec.messages.length === 8, 'all');
    expect(rec.messages.map((m) => m.text)).toEqual(['/new', '/stop', '/status', '/help', '/mode read-only', '/mode', 'mode is a word', 'new ideas please']);
  });

  it("drops its own messages, other bots, edits, deletions and redeliveries", async () => {
    const { adapter, rec } = await running({}, { echoOwnMessages: true });
    const root = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'root');
    await rec.waitFor(() => rec.messages[0], 'root');
    await adapter.post(rec.messages[0].thread, { text: 'my own reply', header: '', answer: 'my own reply', answerOffset: 0, plain: false, final: true, part: 0 });
    await acked(h.server.botMessage(h.server.defaultChannel, { text: 'another bot', thread_ts: root.ts }).delivery);
    await acked(h.server.editMessage(h.server.defaultChannel, root.ts, `<@${h.server.bot.userId}> edited`).delivery);
    const doomed = h.server.message(h.server.defaultChannel, h.server.defaultUser, 'soon deleted', { thread_ts: root.ts });
    await rec.waitFor(() => rec.messages[1], 'doomed');
    await acked(h.server.deleteMessage(h.server.defaultChannel, doomed.ts).delivery);
    await acked(h.server.redeliver(root.delivery, { retryNum: 1 }));
    await h.server.waitFor(() => h.server.deliveries.filter((d) => d.state === 'acked').length >= 7 || undefined, 5000, 'echo delivered');
    await acked(h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'last', { thread_ts: root.ts }).delivery);
    await rec.waitFor(() => rec.messages.length === 3, 'last');
    expect(rec.messages.map((m) => m.text)).toEqual(['root', 'soon deleted', 'last']);
  });

  it('hands files over as attachments whose download uses the bot token; without files:read it names the scope', async () => {
    const { rec } = await running();
    h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'look', {
      files: [{ name: 'notes.txt', data: 'remember the heron', mimetype: 'text/plain' }, { name: 'pic.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]), mimetype: 'image/png' }],
    });
    const msg = await rec.waitFor(() => rec.messages[0], 'files');
    expect(msg.attachments.map((a) => [a.kind, a.name, a.mimeType, a.sizeBytes])).toEqual([['file', 'notes.txt', 'text/plain', 18], ['image', 'pic.png', 'image/png', 4]]);
    expect((await msg.attachments[0].download()).toString()).toBe('remember the heron');
    h.server.setScopes(['chat:write', 'app_mentions:read']);
    await expect(msg.attachments[0].download()).rejects.toThrow(/files:read/);
  });
});

describe('HTTP endpoint', () => {
  it('answers 503 before start and answers url_verification once running', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const adapter = await h.httpAdapter();
    const early = await h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'too early', { retry: false }).delivery.done;
    expect(early.attempts[0].status).toBe(503);
    const silent: InboundHandler = { onMessage: async () => undefined, onAction: async () => undefined };
    await adapter.start(silent);
    const v = await h.server.urlVerification('the-challenge').done;
    expect(v.attempts[0]).toMatchObject({ status: 200 });
    expect(JSON.parse(v.attempts[0].body!)).toEqual({ challenge: 'the-challenge' });
  });
});
