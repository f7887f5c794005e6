/**
 * Native streaming through the platform-free writer against the fake Slack: a reply in a channel thread
 * streams with the recipient ids and settles exactly (stopStream with the missing tail, no update when
 * nothing else changed; stopStream + chat.update when the Stop button must go or an append was lost); a
 * refused stream falls back to post + update within the same reply, and the workspace is remembered; streams
 * are offered only while the workspace's startStream budget has room, and never without a known recipient.
 */
import { surfaceFor } from '../../../src/adapters/contract/adapter';
import { systemClock } from '../../../src/adapters/contract/clock';
import { encodeActionPayload } from '../../../src/adapters/contract/action-payload';
import type { ThreadRef } from '../../../src/adapters/contract/thread-ref';
import { MessageWriter } from '../../../src/adapters/render/message-writer';
import { RateGovernor } from '../../../src/adapters/render/rate-governor';
import type { SlackAdapter } from '../../../src/adapters/slack/adapter';
import { slackThread } from '../../../src/adapters/slack/thread';
import { RecordingHandler, startSlackHarness, type SlackHarness } from './harness';

let h: SlackHarness;
afterEach(() => h.cleanup());

const STOP = [{ label: 'Stop', payload: encodeActionPayload({ kind: 'stop', taskId: 't1' }), style: 'danger' as const }];

async function setUp(): Promise<{ adapter: SlackAdapter; thread: ThreadRef }> {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = await h.httpAdapter({ streaming: { dm_edit_interval_ms: 20, group_edit_interval_ms: 20, typing_renew_ms: 0 } });
  const rec = new RecordingHandler();
  await adapter.start(rec);
  h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'stream to me');
  const msg = await rec.waitFor(() => rec.messages[0], 'mention');
  return { adapter, thread: msg.thread };
}

/** Streams `answer` in pieces through a real MessageWriter, then finishes it. */
async function write(adapter: SlackAdapter, thread: ThreadRef, answer: string, buttons?: typeof STOP) {
  const writer = new MessageWriter({ surface: surfaceFor(adapter, thread), clock: systemClock, governor: new RateGovernor(systemClock), limits: adapter.limits, isDM: false });
  for (let i = 8; i < answer.length; i += 8) {
    writer.update({ header: '', answer: answer.slice(0, i), ...(buttons ? { buttons } : {}) });
    await new Promise((r) => setTimeout(r, 25));
  }
  return writer.finish({ header: '', answer });
}

const threadReplies = (thread: ThreadRef) => (thread.platform === 'slack' ? h.server.thread(thread.channel, thread.threadTs).filter((m) => m.from === 'bot') : []);

it('streams into the thread with the recipient and settles with the tail, without an update', async () => {
  const { adapter, thread } = await setUp();
  const answer = 'A streamed answer, appended piece by piece, settled by its stop.';
  expect((await write(adapter, thread, answer)).ok).toBe(true);
  const [reply] = threadReplies(thread);
  expect(reply.visibleText).toBe(answer);
  expect(reply.stream?.state).toBe('completed');
  expect(h.server.callsTo('chat.startStream')[0].params).toMatchObject({ recipient_user_id: h.server.defaultUser, recipient_team_id: h.server.team.id });
  expect(h.server.callsTo('chat.appendStream').length).toBeGreaterThan(0);
  expect(h.server.callsTo('chat.stopStream')).toHaveLength(1);
  expect(h.server.callsTo('chat.update')).toHaveLength(0);
});

it('streams to whoever wrote last, also when another gateway instance received their message', async () => {
  const { adapter, thread } = await setUp();
  const bob = h.server.addUser({ id: 'U0000BOB', name: 'bob' });
  adapter.received({ platform: 'slack', thread, user: { id: bob, team: 'T0000OTHER' }, text: 'me next', attachments: [], mentionsBot: true, isDM: false, eventId: 'Ev9', messageId: '9.9', sentAt: 0 });
  expect((await write(adapter, thread, 'An answer for the one who asked last, wherever they asked.')).ok).toBe(true);
  expect(h.server.callsTo('chat.startStream')[0].params).toMatchObject({ recipient_user_id: bob, recipient_team_id: 'T0000OTHER' });
});

it('removes the Stop button with an update at the end, and replaces the text after a lost append', async () => {
  const { adapter, thread } = await setUp();
  const answer = 'This one carries a Stop button while it streams, and one append gets lost on the way.';
  h.server.failNext({ method: 'chat.appendStream', times: 1, with: 'disconnect' });
  expect((await write(adapter, thread, answer, STOP)).ok).toBe(true);
  const [reply] = threadReplies(thread);
  expect(reply.visibleText).toBe(answer);
  expect(reply.blocks?.some((b) => b.type === 'actions')).toBe(false);
  expect(h.server.callsTo('chat.appendStream').some((c) => c.error === 'disconnect')).toBe(true);
  expect(h.server.callsTo('chat.update')).toHaveLength(1);
});

it('falls back to post + update when Slack refuses streams, and offers none in that workspace again', async () => {
  const { adapter, thread } = await setUp();
  h.server.failNext({ method: 'chat.startStream', with: { error: 'feature_not_enabled' } });
  const answer = 'Streaming was refused, so this reply is posted and edited instead.';
  expect((await write(adapter, thread, answer)).ok).toBe(true);
  const replies = threadReplies(thread);
  expect(replies.map((m) => m.visibleText)).toEqual([answer]);
  expect(replies[0].stream).toBeUndefined();
  expect(adapter.nativeStream(thread, false)).toBeUndefined();
});

it('offers streams only with a known recipient outside IMs, and only while the startStream budget lasts', async () => {
  const { adapter, thread } = await setUp();
  const stranger = slackThread(h.server.team.id, h.server.defaultChannel, '1700000000.000100');
  expect(adapter.nativeStream(stranger, false)).toBeUndefined();
  const im = slackThread(h.server.team.id, h.server.dm(h.server.defaultUser), '1700000000.000200');
  expect(adapter.nativeStream(im, true)?.kind).toBe('append');
  const offered = Array.from({ length: 30 }, () => adapter.nativeStream(thread, false));
  // 18 a minute per workspace (one was taken by the IM above)
  expect(offered.filter(Boolean)).toHaveLength(17);
  expect(offered.slice(17).every((s) => s === undefined)).toBe(true);
});
