/**
 * `startConversation` (a scheduled run delivered to `discord:<guild>:<channel>`) on the fake Discord
 * platform: the first message goes into the channel, pinging nobody, with a thread opened on it and named
 * after it, where the replies go and a member's message is a follow-up of the same conversation; a thread
 * target is posted into in place; a refused thread leaves the conversation in the channel, a failing one is
 * opened on the first reply; another guild's channel, a hidden one and a forum are refused, classified,
 * before anything is posted; a slash command's open reply in the channel is never taken for the message.
 */
import type { DeliveryTarget } from '../../../src/adapters/contract/delivery-target';
import type { MessageRef } from '../../../src/adapters/contract/messages';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { DiscordAdapter } from '../../../src/adapters/discord/adapter';
import type { FakeDiscordOptions } from '../../fakes/discord-server';
import { failure, RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const content = (text: string): OutboundContent => ({ text, header: '', answer: '', answerOffset: 0, plain: false, final: true, part: 0 });

async function started(options: FakeDiscordOptions = { rateLimits: false }, messageContent = false): Promise<{ a: DiscordAdapter; handler: RecordingHandler }> {
  h = await startDiscordHarness(options);
  const a = h.adapter({ messageContent }, { settleMs: 60_000 });
  const handler = new RecordingHandler();
  await a.start(handler);
  return { a, handler };
}

const target = (channel: string, guild = h.server.defaultGuild.id): DeliveryTarget => ({ platform: 'discord', guild, channel: h.server.channelId(channel) });

describe('a text channel', () => {
  it('gets the first message, a thread on it named after it, the replies in the thread, and a member there continues it', async () => {
    const { a, handler } = await started({ rateLimits: false, privilegedIntents: { messageContent: true } }, true);
    const guild = h.server.defaultGuild.id;
    const general = h.server.channelId('general');
    const first = await a.startConversation(target('general'), content('⏰ **daily-prs** @everyone'));
    expect(first.thread).toEqual({ platform: 'discord', guild, channel: general, thread: first.messageId });
    expect(h.server.messageView(first.messageId)).toMatchObject({ channelId: general, content: expect.stringMatching(/^⏰ \*\*daily-prs\*\* @/), allowedMentions: { parse: [], replied_user: false } });
    expect(h.server.pingingMessages()).toEqual([]);
    expect(h.server.channelView('general').threads).toEqual([{ id: first.messageId, name: '⏰ daily-prs @everyone', archived: false, starterMessageId: first.messageId }]);

    const reply = await a.post(first.thread, content('Two pull requests wait for review.'));
    await a.edit(reply, content('Two pull requests wait for review: #3 and #7.'));
    expect(h.server.transcript(first.messageId)).toEqual(['penguin-bot: Two pull requests wait for review: #3 and #7.']);
    await a.edit(first, content('⏰ **daily-prs** (done)'));
    expect(h.server.messageView(first.messageId).content).toBe('⏰ **daily-prs** (done)');
    expect(h.server.transcript('general')).toEqual(['penguin-bot: ⏰ **daily-prs** (done)']);

    h.server.message(first.messageId, 'alice', 'which one is older?');
    const follow = await handler.waitFor(() => handler.messages[0], 'the follow-up in the thread');
    expect(follow).toMatchObject({ thread: first.thread, text: 'which one is older?', followUp: true, mentionsBot: false });
  });

  it('in an announcement channel opens an announcement thread the same way', async () => {
    const { a } = await started({ rateLimits: false, guilds: [{ channels: ['general', { name: 'news', type: 'announcement' }] }] });
    const first = await a.startConversation(target('news'), content('⏰ **weekly**'));
    expect(h.server.channelView('news').threads).toEqual([{ id: first.messageId, name: '⏰ weekly', archived: false, starterMessageId: first.messageId }]);
    const reply = await a.post(first.thread, content('This week in short.'));
    expect(h.server.messageView(reply.messageId).channelId).toBe(first.messageId);
  });

  it('stays in the channel under the first message when the bot may not open threads there', async () => {
    const { a } = await started();
    h.server.setBotPermissions('general', { deny: ['CreatePublicThreads'] });
    const first = await a.startConversation(target('general'), content('⏰ **eng**'));
    const reply = await a.post(first.thread, content('Answering in the channel.'));
    expect(h.server.channelView('general').threads).toEqual([]);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: ⏰ **eng**', 'penguin-bot: Answering in the channel.']);
    await a.edit(reply, content('Answered in the channel.'));
    expect(h.server.messageView(reply.messageId).content).toBe('Answered in the channel.');
  });

  it('opens the thread on the first reply when Discord failed to open it at first, posting the first message once', async () => {
    const { a } = await started();
    h.server.failNext({ route: 'startThreadFromMessage', with: { httpStatus: 502 } });
    const first = await a.startConversation(target('general'), content('⏰ **eng**'));
    expect(h.server.channelView('general').threads).toEqual([]);
    await a.post(first.thread, content('In the thread after all.'));
    expect(h.server.channelView('general').threads.map((t) => t.id)).toEqual([first.messageId]);
    expect(h.server.transcript(first.messageId)).toEqual(['penguin-bot: In the thread after all.']);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: ⏰ **eng**']);
  });

  it("never takes the open reply of a slash command being handled in the channel for its first message", async () => {
    const { a, handler } = await started();
    let first: MessageRef | undefined;
    let loadingMeanwhile: boolean | undefined;
    handler.onMessageHook = async () => {
      first = await a.startConversation(target('general'), content('⏰ **eng**'));
      loadingMeanwhile = cmd.view().response?.loading;
    };
    const cmd = h.server.slashCommand('general', 'alice', 'status');
    await handler.waitFor(() => handler.messages[0], 'the /status');
    expect(loadingMeanwhile).toBe(true);
    expect(first!.messageId).not.toBe(cmd.view().response?.id);
    expect(h.server.messageView(first!.messageId)).toMatchObject({ channelId: h.server.channelId('general'), content: '⏰ **eng**' });
  });
});

describe('rate budgets', () => {
  it('draws the first message from the channel\'s post budget, like any post there', async () => {
    const { a } = await started();
    const t = target('general');
    expect(a.startConversationScopes(t)).toEqual(a.rateScopes({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: null }, 'post'));
    expect(a.startConversationScopes(t).length).toBeGreaterThan(0);
    expect(a.startConversationScopes({ platform: 'slack', team: 'T1', channel: 'C1' })).toEqual([]);
  });
});

describe('other targets', () => {
  it('posts into a thread target in place, opening nothing', async () => {
    const { a } = await started();
    const starter = h.server.message('general', 'bob', 'release planning');
    const thread = h.server.startThread('general', 'bob', 'release planning', { fromMessage: starter.id });
    const first = await a.startConversation({ platform: 'discord', guild: h.server.defaultGuild.id, channel: thread }, content('⏰ **release**'));
    expect(first.thread).toEqual({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread });
    expect(h.server.messageView(first.messageId).channelId).toBe(thread);
    await a.post(first.thread, content('Release notes are drafted.'));
    expect(h.server.transcript(thread)).toEqual(['penguin-bot: ⏰ **release**', 'penguin-bot: Release notes are drafted.']);
    expect(h.server.callsTo('startThreadFromMessage')).toEqual([]);
  });

  it("refuses another guild's channel, a channel the bot cannot see, a forum and an unknown channel, posting nothing", async () => {
    const { a } = await started({ rateLimits: false, guilds: [{ name: 'One', channels: ['general', { name: 'ideas', type: 'forum' }] }, { name: 'Two', channels: ['elsewhere'] }] });
    const one = h.server.guild('One').id;
    const two = h.server.guild('Two').id;
    const elsewhere = h.server.channelId('elsewhere');

    const wrongGuild = await failure(() => a.startConversation({ platform: 'discord', guild: one, channel: elsewhere }, content('x')));
    expect([wrongGuild.classification, wrongGuild.message]).toEqual([{ kind: 'surface', reason: 'invalid_request' }, `channel ${elsewhere} is in guild ${two}, not in guild ${one}`]);
    // now that the channel is known, the same problem shows before any run, without a call
    expect(a.deliveryProblem({ platform: 'discord', guild: one, channel: elsewhere })).toBe(wrongGuild.message);
    expect(a.deliveryProblem({ platform: 'discord', guild: two, channel: elsewhere })).toBeUndefined();
    expect(a.deliveryProblem({ platform: 'discord', guild: one, channel: '999999999999999999' })).toBeUndefined();

    h.server.setBotPermissions('general', { deny: ['ViewChannel'] });
    const hidden = await failure(() => a.startConversation(target('general', one), content('x')));
    expect(hidden.classification).toEqual({ kind: 'surface', reason: 'permission' });
    expect(hidden.message).toMatch(/Missing Access \(the bot needs View Channel and Send Messages here\)$/);

    const forum = await failure(() => a.startConversation(target('ideas', one), content('x')));
    expect([forum.classification, forum.message]).toEqual([
      { kind: 'surface', reason: 'invalid_request' },
      `channel ${h.server.channelId('ideas')} is a forum channel; a delivery needs a text or announcement channel, or a thread`,
    ]);
    // a channel the bot has never heard of is looked up first
    const unknown = await failure(() => a.startConversation({ platform: 'discord', guild: one, channel: '123456789012345678' }, content('x')));
    expect([unknown.code, unknown.classification]).toEqual([10003, { kind: 'surface', reason: 'permission' }]);
    expect(unknown.message).toMatch(/Unknown Channel \(the bot needs View Channel here\)$/);
    // the only message attempted was the hidden channel's, which Discord refused
    expect(h.server.callsTo('createMessage').map((c) => c.path)).toEqual([`/channels/${h.server.channelId('general')}/messages`]);
    expect(h.server.botMessages('general')).toEqual([]);
  });
});
