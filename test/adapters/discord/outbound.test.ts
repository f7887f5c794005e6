/**
 * What the adapter sends, as the fake Discord platform shows it: Discord Markdown (tables as code blocks),
 * `allowed_mentions: {parse: []}` so model text pings nobody, buttons as components removed by an edit
 * without them; each Discord failure classified once (permissions and blocked DMs surfaced, gone and
 * archived messages post anew, over-long text re-split, 429s / 5xx / cut connections retried with the
 * server's delay); a refused thread falls back to the channel; rate scopes follow the bucket headers.
 */
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { DiscordThreadRef } from '../../../src/adapters/contract/thread-ref';
import type { DiscordAdapter } from '../../../src/adapters/discord/adapter';
import { bucketHash } from '../../fakes/discord-rate-limit';
import type { FakeDiscordOptions } from '../../fakes/discord-server';
import { failure, RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const content = (text: string, o: Partial<OutboundContent> = {}): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0, ...o });

async function started(options: FakeDiscordOptions = { rateLimits: false }): Promise<DiscordAdapter> {
  h = await startDiscordHarness(options);
  const a = h.adapter();
  await a.start(new RecordingHandler());
  return a;
}

const general = (): DiscordThreadRef => ({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: null });

describe('what is sent', () => {
  it('renders Discord Markdown, tables as code blocks, and pings nobody whatever the model wrote', async () => {
    const a = await started();
    const alice = h.server.user('alice');
    const role = h.server.addRole(h.server.defaultGuild.id, { name: 'ops', mentionable: true }, ['bob']);
    const text = `@everyone @here <@${alice.id}> <@&${role.id}> look:\n\n| a | b |\n|---|---|\n| 1 | 2 |`;
    const ref = await a.post(general(), content(text));
    const view = h.server.messageView(ref.messageId);
    expect(view.pinged.any).toBe(false);
    expect(view.allowedMentions).toEqual({ parse: [], replied_user: false });
    expect(view.content).toContain('```\na │ b\n──┼──\n1 │ 2\n```');
    expect(h.server.pingingMessages()).toEqual([]);
    await a.edit(ref, content(`${text}\n\nand again @everyone`));
    expect(h.server.messageView(ref.messageId).pinged.any).toBe(false);
  });

  it('sends buttons as an action row and removes them with an edit that has none', async () => {
    const a = await started();
    const ref = await a.post(general(), content('running', { buttons: [{ label: 'Stop', payload: 's:t1', style: 'danger' }] }));
    expect(h.server.messageView(ref.messageId).buttons).toEqual([[{ label: 'Stop', customId: 's:t1', style: 4, disabled: false }]]);
    await a.edit(ref, content('done'));
    expect(h.server.messageView(ref.messageId)).toMatchObject({ content: 'done', buttons: [] });
  });

  it('never sends an empty message', async () => {
    const a = await started();
    const ref = await a.post(general(), content('   '));
    expect(h.server.messageView(ref.messageId).content).toBe('…');
  });
});

describe('failures, classified once', () => {
  it('surfaces missing permissions and closed DMs', async () => {
    const a = await started();
    h.server.setBotPermissions('general', { deny: ['SendMessages'] });
    const denied = await failure(() => a.post(general(), content('x')));
    expect([denied.code, denied.classification]).toEqual([50013, { kind: 'surface', reason: 'permission' }]);
    expect(denied.message).toMatch(/Missing Permissions \(the bot needs View Channel and Send Messages here\)$/);
    h.server.setBotPermissions('general', { deny: ['ViewChannel'] });
    const hidden = await failure(() => a.post(general(), content('x')));
    expect([hidden.code, hidden.classification]).toEqual([50001, { kind: 'surface', reason: 'permission' }]);
    const dm: DiscordThreadRef = { platform: 'discord', guild: null, channel: h.server.dmChannelId('alice'), thread: null };
    h.server.setDmsClosed('alice');
    expect((await failure(() => a.post(dm, content('x')))).classification).toEqual({ kind: 'surface', reason: 'blocked' });
  });

  it('posts anew after a message in an archived, locked thread; re-splits text that is too long', async () => {
    const a = await started();
    const starter = h.server.message('general', 'bob', 'topic');
    const thread = h.server.startThread('general', 'bob', 'topic', { fromMessage: starter.id });
    const ref = await a.post({ ...general(), thread }, content('in the thread'));
    h.server.archiveThread(thread, { locked: true });
    const archived = await failure(() => a.edit(ref, content('too late')));
    expect([archived.code, archived.classification]).toEqual([50083, { kind: 'degrade', reason: 'gone' }]);
    const long = await failure(() => a.post(general(), content('x'.repeat(2001), { plain: true })));
    expect([long.code, long.classification]).toEqual([50035, { kind: 'degrade', reason: 'too_long' }]);
  });

  it("retries 429s with the server's delay, 5xx and cut connections", async () => {
    const a = await started();
    h.server.failNext({ route: 'createMessage', with: { rateLimit: 2.5 } });
    const limited = await failure(() => a.post(general(), content('x')));
    expect(limited.classification).toMatchObject({ kind: 'retry', scope: 'chat' });
    expect(limited.classification.kind === 'retry' && limited.classification.retryAfterMs).toBeGreaterThanOrEqual(2500);
    h.server.failNext({ route: 'createMessage', with: { httpStatus: 502 } });
    expect((await failure(() => a.post(general(), content('x')))).classification).toEqual({ kind: 'retry' });
    h.server.failNext({ route: 'createMessage', with: 'disconnect' });
    expect((await failure(() => a.post(general(), content('x')))).classification).toEqual({ kind: 'retry' });
    // a global 429 pauses the whole bot: the next call is refused before it leaves
    h.server.failNext({ route: 'createMessage', with: { rateLimit: 1, global: true, scope: 'global' } });
    expect((await failure(() => a.post(general(), content('x')))).classification).toMatchObject({ kind: 'retry', scope: 'account' });
    const calls = h.server.callsTo('createMessage').length;
    expect((await failure(() => a.edit({ thread: general(), messageId: '1'.repeat(18) }, content('x')))).classification).toMatchObject({ kind: 'retry', scope: 'account' });
    expect(h.server.callsTo('createMessage')).toHaveLength(calls);
    expect(h.server.transcript('general')).toEqual([]);
    // nothing announces the end of a global pause (Retry-After, at least 1 s): wait it out, then the bot sends again
    await new Promise((r) => setTimeout(r, 1_100));
    await a.post(general(), content('after the pause'));
    expect(h.server.transcript('general')).toEqual(['penguin-bot: after the pause']);
  });

  it('answers in the channel when it may not open a thread there', async () => {
    const a = await started();
    const handler = new RecordingHandler();
    const b = h.adapter();
    await b.start(handler);
    h.server.setBotPermissions('general', { deny: ['CreatePublicThreads'] });
    const sent = h.server.mention('general', 'alice', 'no threads here');
    const m = await handler.waitFor(() => handler.messages[0], 'the mention');
    const reply = await b.post(m.thread, content('Answering here instead.'));
    expect(h.server.messageView(reply.messageId).channelId).toBe(h.server.channelId('general'));
    await b.edit(reply, content('Answered here instead.'));
    expect(h.server.transcript('general')).toEqual([`alice: <@${h.server.applicationId}> no threads here`, 'penguin-bot: Answered here instead.']);
    expect(h.server.channelView('general').threads).toEqual([]);
    expect(sent.id).toBe((m.thread as DiscordThreadRef).thread);
    await a.stop();
  });
});

describe('rate scopes', () => {
  it('learn each bucket from the X-RateLimit headers, and a full bucket throws instead of queueing', async () => {
    const a = await started({ rateLimits: { routes: { createMessage: { limit: 2, windowMs: 800 } } } });
    const before = a.rateScopes(general(), 'post');
    expect(before[0]).toMatchObject({ level: 'account', limit: { count: 45, perMs: 1000 } });
    expect(before[1]).toMatchObject({ level: 'chat', limit: { count: 4, perMs: 6250, burst: 2 } });
    await a.post(general(), content('one'));
    const after = a.rateScopes(general(), 'post');
    expect(after[1]).toMatchObject({ key: `discord:${h.server.applicationId}:${bucketHash('createMessage')}:${h.server.channelId('general')}`, limit: { count: 1, burst: 2 } });
    expect(after[1].limit.perMs).toBeGreaterThanOrEqual(1_600);
    await a.post(general(), content('two'));
    const full = await failure(() => a.post(general(), content('three')));
    expect(full.classification).toMatchObject({ kind: 'retry', scope: 'chat' });
    expect(h.server.rateLimitedCount()).toBe(0);
    expect(a.rateScopes(general(), 'edit')[1].key).not.toBe(after[1].key);
  });
});
