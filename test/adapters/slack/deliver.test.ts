/**
 * Deliveries into a Slack channel (`slack:<team>:<channel>`, a scheduled run) against the fake Slack: the
 * first message is a new top-level message rendered as every post is (markdown block, mrkdwn fallback), its
 * thread (`slack:<team>:<channel>:<ts>`) takes the later posts, and a person's reply in it — without a mention
 * (thread_follow_up) or with one — arrives on that same thread (a user id as the channel: the thread is in
 * the IM Slack answered with). A target in another workspace is refused before any call; a channel the bot
 * is not in, cannot see or that is archived is refused with Slack's classification and a message saying
 * what to do. Through the Outbox the first message draws on the
 * channel's post budget and follows the retry policy; a refusal reaches the caller as the classified error.
 */
import pino from 'pino';
import { systemClock } from '../../../src/adapters/contract/clock';
import type { DeliveryTarget } from '../../../src/adapters/contract/delivery-target';
import { PlatformError } from '../../../src/adapters/contract/errors';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import { bindingKey } from '../../../src/adapters/contract/thread-ref';
import { RateGovernor } from '../../../src/adapters/render/rate-governor';
import type { SlackAdapter } from '../../../src/adapters/slack/adapter';
import { slackThread } from '../../../src/adapters/slack/thread';
import { GatewayMetrics } from '../../../src/gateway/admin/metrics';
import { meterAdapter } from '../../../src/gateway/runtime/metered-adapter';
import { Outbox } from '../../../src/gateway/runtime/outbox';
import { RecordingHandler, startSlackHarness, type SlackHarness } from './harness';

let h: SlackHarness;
afterEach(() => h.cleanup());

const content = (text: string): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0 });

async function running(overrides = {}): Promise<{ adapter: SlackAdapter; rec: RecordingHandler; target: DeliveryTarget }> {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = await h.httpAdapter({ nativeStreaming: false, ...overrides });
  const rec = new RecordingHandler();
  await adapter.start(rec);
  return { adapter, rec, target: { platform: 'slack', team: h.server.team.id, channel: h.server.defaultChannel } };
}

async function refusal(p: Promise<unknown>): Promise<PlatformError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

describe('startConversation', () => {
  it('posts a new top-level message in the channel, rendered like any post, and returns the thread rooted at it', async () => {
    const { adapter, target } = await running();
    const ref = await adapter.startConversation(target, content('⏰ **standup**'));
    const channel = h.server.defaultChannel;

    expect(ref.thread).toEqual(slackThread(h.server.team.id, channel, ref.messageId));
    expect(bindingKey(ref.thread)).toBe(`slack:${h.server.team.id}:${channel}:${ref.messageId}`);
    const [call] = h.server.callsTo('chat.postMessage');
    expect(call.params.thread_ts).toBeUndefined();
    const top = h.server.channelState(channel).messages.filter((m) => m.from === 'bot');
    expect(top).toHaveLength(1);
    expect(top[0]).toMatchObject({ ts: ref.messageId, text: '⏰ *standup*', visibleText: '⏰ **standup**' });
    expect(top[0].thread_ts).toBeUndefined();
    expect(top[0].blocks?.map((b) => b.type)).toEqual(['markdown']);

    const reply = await adapter.post(ref.thread, content('The answer, in the thread.'));
    const state = h.server.messageState(reply.messageId)!;
    expect(state).toMatchObject({ thread_ts: ref.messageId, visibleText: 'The answer, in the thread.' });
    expect(h.server.channelState(channel).messages.filter((m) => m.from === 'bot')).toHaveLength(1);
  });

  it('draws on the same budgets as a post in that channel', async () => {
    const { adapter, target } = await running();
    const thread = slackThread(h.server.team.id, h.server.defaultChannel, '1700000000.000100');
    expect(adapter.startConversationScopes(target)).toEqual(adapter.rateScopes(thread, 'post'));
    expect(adapter.startConversationScopes({ platform: 'telegram', chat: '42', topic: null })).toEqual([]);
  });

  it('a reply in that thread arrives on it: without a mention as a follow-up, with one as a mention', async () => {
    const { adapter, rec, target } = await running();
    const ref = await adapter.startConversation(target, content('⏰ **digest**'));
    h.server.message(h.server.defaultChannel, h.server.defaultUser, 'which one is older?', { thread_ts: ref.messageId });
    const follow = await rec.waitFor(() => rec.messages[0], 'the follow-up');
    expect(follow).toMatchObject({ text: 'which one is older?', followUp: true, mentionsBot: false, isDM: false });
    expect(bindingKey(follow.thread)).toBe(bindingKey(ref.thread));

    h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'and the newest?', { thread_ts: ref.messageId });
    const mention = await rec.waitFor(() => rec.messages[1], 'the mention');
    expect(mention).toMatchObject({ text: 'and the newest?', mentionsBot: true });
    expect(bindingKey(mention.thread)).toBe(bindingKey(ref.thread));
  });

  it('a user id as the channel opens the thread in the bot\'s IM with them, where their reply arrives', async () => {
    const { adapter, rec } = await running();
    const ref = await adapter.startConversation({ platform: 'slack', team: h.server.team.id, channel: h.server.defaultUser }, content('⏰ **mine**'));
    const im = h.server.dm(h.server.defaultUser);
    expect(ref.thread).toEqual(slackThread(h.server.team.id, im, ref.messageId));
    expect(adapter.place(ref.thread).direct).toBe(true);
    h.server.dmMessage(h.server.defaultUser, 'thanks', { thread_ts: ref.messageId });
    const reply = await rec.waitFor(() => rec.messages[0], 'the reply in the IM thread');
    expect(bindingKey(reply.thread)).toBe(bindingKey(ref.thread));
  });

  it('without thread_follow_up only a mention in the thread arrives', async () => {
    const { adapter, rec, target } = await running({ threadFollowUp: false });
    const ref = await adapter.startConversation(target, content('⏰ **digest**'));
    const plain = h.server.message(h.server.defaultChannel, h.server.defaultUser, 'no mention here', { thread_ts: ref.messageId });
    expect((await plain.delivery.done).state).toBe('acked');
    h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'with a mention', { thread_ts: ref.messageId });
    const m = await rec.waitFor(() => rec.messages[0], 'the mention');
    expect(m.text).toBe('with a mention');
    expect(bindingKey(m.thread)).toBe(bindingKey(ref.thread));
    expect(rec.messages).toHaveLength(1);
  });

  it('refuses a target in another workspace without calling Slack', async () => {
    const { adapter } = await running();
    const err = await refusal(adapter.startConversation({ platform: 'slack', team: 'T0OTHER99', channel: h.server.defaultChannel }, content('x')));
    expect(err.classification).toEqual({ kind: 'surface', reason: 'invalid_request' });
    expect(err.message).toBe(`slack:T0OTHER99:${h.server.defaultChannel} is in workspace T0OTHER99, but this gateway's Slack bot is installed in ${h.server.team.id} (${h.server.team.name})`);
    expect(h.server.callsTo('chat.postMessage')).toHaveLength(0);
    expect((await refusal(adapter.startConversation({ platform: 'discord', guild: '1', channel: '2' }, content('x')))).classification.kind).toBe('surface');
  });

  it('names a target in another workspace as a delivery problem before any run, and nothing before it connects', async () => {
    const idle = await startSlackHarness({ rateLimits: false });
    expect((await idle.httpAdapter()).deliveryProblem({ platform: 'slack', team: 'T0OTHER99', channel: idle.server.defaultChannel })).toBeUndefined();
    await idle.cleanup();
    const { adapter } = await running();
    expect(adapter.deliveryProblem({ platform: 'slack', team: h.server.team.id, channel: h.server.defaultChannel })).toBeUndefined();
    expect(adapter.deliveryProblem({ platform: 'slack', team: 'T0OTHER99', channel: h.server.defaultChannel })).toBe(`slack:T0OTHER99:${h.server.defaultChannel} is in workspace T0OTHER99, but this gateway's Slack bot is installed in ${h.server.team.id} (${h.server.team.name})`);
    expect(h.server.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('refuses before start: there is no workspace to check the target against', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const adapter = await h.httpAdapter();
    const err = await refusal(adapter.startConversation({ platform: 'slack', team: h.server.team.id, channel: h.server.defaultChannel }, content('x')));
    expect(err.message).toMatch(/has not connected to Slack yet/);
    expect(h.server.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('says what to do when the bot is not in the channel, cannot see it, or it is archived', async () => {
    const { adapter } = await running();
    const team = h.server.team.id;
    const outside = h.server.addChannel({ name: 'random', botMember: false });
    const secret = h.server.addChannel({ name: 'secret', kind: 'private', botMember: false });
    const old = h.server.addChannel({ name: 'old', archived: true });

    const notIn = await refusal(adapter.startConversation({ platform: 'slack', team, channel: outside }, content('x')));
    expect(notIn).toMatchObject({ code: 'not_in_channel', classification: { kind: 'surface', reason: 'permission' } });
    expect(notIn.message).toBe(`@penguin is not a member of channel ${outside}: invite it there (/invite @penguin) (chat.postMessage: not_in_channel)`);

    const unseen = await refusal(adapter.startConversation({ platform: 'slack', team, channel: secret }, content('x')));
    expect(unseen).toMatchObject({ code: 'channel_not_found', classification: { kind: 'surface', reason: 'permission' } });
    expect(unseen.message).toMatch(new RegExp(`^@penguin can see no channel ${secret} in workspace ${team} \\(a private channel needs it invited first\\)`));

    const archived = await refusal(adapter.startConversation({ platform: 'slack', team, channel: old }, content('x')));
    expect(archived).toMatchObject({ code: 'is_archived', message: `channel ${old} is archived (chat.postMessage: is_archived)` });
    expect(adapter.classify(archived)).toBe(archived);
    expect(h.server.botMessages(outside)).toEqual([]);
  });
});

describe('through the Outbox', () => {
  function outbox(onGrant: (keys: string[]) => void = () => undefined): Outbox {
    return new Outbox({ governor: new RateGovernor(systemClock, { onGrant: (keys) => onGrant(keys) }), clock: systemClock, logger: pino({ level: 'silent' }) });
  }

  it('opens the conversation on the channel\'s post budget, retrying a Slack hiccup (as the gateway wraps the adapter)', async () => {
    const { adapter: raw, target } = await running();
    const adapter = meterAdapter(raw, new GatewayMetrics(), systemClock);
    const grants: string[][] = [];
    h.server.failNext({ method: 'chat.postMessage', with: { httpStatus: 503 } });
    const opened = await outbox((k) => grants.push(k)).startConversation(adapter, target, { text: '⏰ **eng**' });
    const ref = 'ref' in opened ? opened.ref : undefined;
    expect(ref?.thread).toMatchObject({ platform: 'slack', channel: h.server.defaultChannel, threadTs: ref?.messageId });
    expect(h.server.callsTo('chat.postMessage').map((c) => c.status)).toEqual([503, 200]);
    const team = h.server.team.id;
    expect(grants).toEqual([
      [`slack:${team}:chat.postMessage`, `slack:${team}:chat.postMessage:${h.server.defaultChannel}`],
      [`slack:${team}:chat.postMessage`, `slack:${team}:chat.postMessage:${h.server.defaultChannel}`],
    ]);
  });

  it('hands a refusal to the caller once, without retrying it', async () => {
    const { adapter } = await running();
    const outside = h.server.addChannel({ name: 'random', botMember: false });
    const opened = await outbox().startConversation(adapter, { platform: 'slack', team: h.server.team.id, channel: outside }, { text: '⏰ **eng**' });
    expect('error' in opened && opened.error).toMatch(/^@penguin is not a member of channel .*\/invite @penguin.*\(chat\.postMessage: not_in_channel\)$/);
    expect(h.server.callsTo('chat.postMessage')).toHaveLength(1);
  });
});
