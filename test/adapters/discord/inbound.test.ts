/**
 * Messages from the fake Discord platform through the real discord.js client into the adapter: a DM is one
 * conversation per DM channel; a mention in a channel names a thread on the user's message, opened when the
 * adapter first answers; a mention of the bot's role or a reply to it addresses it too; in the bot's own
 * thread any message is a follow-up (with Message Content), elsewhere chatter never reaches the gateway;
 * bots are ignored; attachments download within the size limit Discord last reported for the guild.
 */
import type { InboundMessage } from '../../../src/adapters/contract/messages';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { DiscordThreadRef } from '../../../src/adapters/contract/thread-ref';
import type { DiscordAdapter } from '../../../src/adapters/discord/adapter';
import { RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const content = (text: string): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0 });

async function started(options: Parameters<typeof startDiscordHarness>[0] = {}, messageContent = false): Promise<{ a: DiscordAdapter; handler: RecordingHandler }> {
  h = await startDiscordHarness(options);
  const a = h.adapter({ messageContent });
  const handler = new RecordingHandler();
  await a.start(handler);
  return { a, handler };
}

const nth = (handler: RecordingHandler, n: number, label: string): Promise<InboundMessage> =>
  handler.waitFor(() => handler.messages[n - 1], label);

describe('messages', () => {
  it('maps a DM to its DM channel, addressed, with the text as written', async () => {
    const { handler } = await started();
    const sent = h.server.dm('alice', 'hello there');
    const m = await nth(handler, 1, 'the DM');
    expect(m).toMatchObject({
      platform: 'discord', thread: { platform: 'discord', guild: null, channel: h.server.dmChannelId('alice'), thread: null },
      text: 'hello there', isDM: true, mentionsBot: true, eventId: sent.id, messageId: sent.id, user: { id: h.server.user('alice').id, name: 'alice', isBot: false },
    });
  });

  it('names a thread on a mention in a channel, strips the mention, and opens the thread when it first answers', async () => {
    const { a, handler } = await started();
    const general = h.server.channelId('general');
    const bob = h.server.user('bob');
    const sent = h.server.mention('general', 'alice', `what does <@${bob.id}> think?`);
    const m = await nth(handler, 1, 'the mention');
    expect(m).toMatchObject({ thread: { guild: h.server.defaultGuild.id, channel: general, thread: sent.id }, text: 'what does @bob think?', isDM: false, mentionsBot: true });
    expect(m.user.roles).toEqual(expect.any(Array));
    expect(h.server.channelView('general').threads).toEqual([]);

    await a.typing(m.thread);
    expect(h.server.channelView('general').threads).toEqual([{ id: sent.id, name: 'what does @bob think?', archived: false, starterMessageId: sent.id }]);
    expect(h.server.channelView(sent.id).botTyping).toBe(true);
    const reply = await a.post(m.thread, content('Thinking about it.'));
    expect(h.server.transcript(sent.id)).toEqual(['penguin-bot: Thinking about it.']);
    await a.edit(reply, content('Bob agrees.'));
    expect(h.server.messageView(reply.messageId).content).toBe('Bob agrees.');
    await a.react({ thread: m.thread, messageId: sent.id }, '👀');
    expect(h.server.messageView(sent.id).reactions).toEqual([{ emoji: '👀', count: 1, me: true }]);
  });

  it('is addressed by a mention of its role and by a reply to one of its messages, and ignores chatter', async () => {
    const { a, handler } = await started({}, false);
    const g = h.server.defaultGuild;
    h.server.message('general', 'alice', 'just chatting, no bot here');
    h.server.message('general', 'bob', `<@&${g.botRoleId}> summarise please`);
    const byRole = await nth(handler, 1, 'the role mention');
    expect(byRole.text).toBe('summarise please');
    const mine = await a.post({ platform: 'discord', guild: g.id, channel: g.channels.general, thread: null }, content('a bot message'));
    h.server.message('general', 'alice', 'replying to the bot', { replyTo: mine.messageId });
    const reply = await nth(handler, 2, 'the reply');
    expect(reply).toMatchObject({ mentionsBot: true, replyTo: { messageId: mine.messageId } });
    expect(handler.messages).toHaveLength(2);
  });

  it("takes any message in the bot's own thread as a follow-up, and nothing from others' threads or bots", async () => {
    const { a, handler } = await started({ privilegedIntents: { messageContent: true } }, true);
    const starter = h.server.mention('general', 'alice', 'start a thread');
    const first = await nth(handler, 1, 'the mention');
    await a.post(first.thread, content('Here is a thread.'));
    const userThreadStarter = h.server.message('general', 'bob', 'my own topic');
    const userThread = h.server.startThread('general', 'bob', 'bob thread', { fromMessage: userThreadStarter.id });
    h.server.message(userThread, 'bob', 'chatting in my thread');
    const robot = h.server.addUser({ username: 'other-bot', bot: true });
    h.server.message(starter.id, robot, 'beep in your thread');
    h.server.message(starter.id, 'alice', 'and one more thing');
    const follow = await nth(handler, 2, 'the follow-up');
    expect(follow).toMatchObject({ thread: first.thread, text: 'and one more thing', mentionsBot: false, followUp: true });
    h.server.mention(userThread, 'bob', 'now I ask you here');
    const inPlace = await nth(handler, 3, 'the mention in a user thread');
    expect(inPlace.thread).toEqual({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: userThread });
    expect(handler.messages).toHaveLength(3);
  });

  it('without Message Content, a thread message must mention the bot (Discord withholds the rest)', async () => {
    const { a, handler } = await started();
    h.server.mention('general', 'alice', 'open a thread');
    const first = await nth(handler, 1, 'the mention');
    await a.post(first.thread, content('ok'));
    const thread = (first.thread as DiscordThreadRef).thread!;
    h.server.message(thread, 'alice', 'not mentioned');
    h.server.mention(thread, 'alice', 'mentioned');
    const second = await nth(handler, 2, 'the mention in the thread');
    expect(second).toMatchObject({ text: 'mentioned', thread: first.thread, mentionsBot: true });
    expect(handler.messages).toHaveLength(2);
  });

  it('downloads attachments, refusing ones over 10 MiB until Discord reports a bigger limit for the guild', async () => {
    const MiB = 1024 * 1024;
    const { handler } = await started({ attachmentSizeLimit: 25 * MiB });
    h.server.mention('general', 'alice', 'see file', { attachments: [{ filename: 'notes.txt', data: 'hello file', contentType: 'text/plain' }] });
    const small = await nth(handler, 1, 'the small file');
    expect(small.attachments.map((x) => ({ kind: x.kind, name: x.name, mimeType: x.mimeType, sizeBytes: x.sizeBytes }))).toEqual([{ kind: 'file', name: 'notes.txt', mimeType: 'text/plain', sizeBytes: 10 }]);
    expect((await small.attachments[0].download()).toString()).toBe('hello file');

    const picture = { filename: 'big.png', data: Buffer.alloc(11 * MiB, 1), contentType: 'image/png' };
    h.server.mention('general', 'alice', 'a picture', { attachments: [picture] });
    const refused = await nth(handler, 2, 'the big image');
    expect(refused.attachments[0]).toMatchObject({ kind: 'image', mimeType: 'image/png', sizeBytes: 11 * MiB });
    await expect(refused.attachments[0].download()).rejects.toThrow('big.png is 11.0 MiB; this server takes attachments up to 10.0 MiB');

    // a boosted guild: interactions carry its attachment_size_limit
    const cmd = h.server.slashCommand('general', 'alice', 'status');
    await cmd.waitForAck();
    await nth(handler, 3, 'the slash command');
    h.server.mention('general', 'alice', 'the picture again', { attachments: [picture] });
    const taken = await nth(handler, 4, 'the big image again');
    expect((await taken.attachments[0].download()).length).toBe(11 * MiB);
  });
});
