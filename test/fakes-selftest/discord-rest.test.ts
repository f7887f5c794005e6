/**
 * The fake Discord REST API's rate limits, faults and protocol edges, seen through raw HTTP and
 * through @discordjs/rest inside discord.js: bucket headers, 429 bodies, per-channel buckets, the
 * global limit (interaction callbacks exempt), the `rateLimited` event and `rejectOnRateLimit`'s
 * RateLimitError, forced errors / 5xx / resets / slow answers and the daily command-create budget.
 */
import { DiscordAPIError, RateLimitError, RESTEvents, type RateLimitData, type TextChannel } from 'discord.js';
import { ManualClock } from '../fakes/discord-clock';
import { rejection, startHarness, type DiscordHarness } from './discord-harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const post = (h: DiscordHarness, channel: string, content = 'x') => h.raw('POST', `/channels/${h.server.channelId(channel)}/messages`, { body: { content } });

describe('rate limits', () => {
  it('sends bucket headers and answers a full bucket with a 429 body, per channel', async () => {
    // A clock that stands still: the window's numbers are exact however slow the machine is.
    const clock = new ManualClock(Date.now());
    h = await startHarness({ clock });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await post(h, 'general'));
    const first = replies[0];
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBe(5);
    expect(first.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(first.headers.get('x-ratelimit-reset')) * 1000).toBe(clock.now() + 5000);
    const limited = replies[5];
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect(limited.body.retry_after).toBe(5);
    expect(limited.headers.get('retry-after')).toBe('5');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-global')).toBeNull();
    expect((await post(h, 'random')).status).toBe(200);
    expect(h.server.rateLimitedCount('createMessage')).toBe(1);
  });

  it('applies the global limit to the bot but not to interaction callbacks', async () => {
    h = await startHarness({ rateLimits: { global: { limit: 3, windowMs: 10_000 }, routes: { default: false, createMessage: false } } });
    const client = await h.login();
    await client.application!.commands.set([{ name: 'stop', description: 'Stop' }], h.server.defaultGuild.id);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(h, 'general')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const refused = await post(h, 'general');
    expect(refused.status).toBe(429);
    expect(refused.body.global).toBe(true);
    expect(refused.headers.get('x-ratelimit-global')).toBe('true');
    expect(refused.headers.get('x-ratelimit-scope')).toBe('global');

    const cmd = h.server.slashCommand('general', 'alice', 'stop');
    const cb = await h.raw('POST', `/interactions/${cmd.id}/${cmd.token}/callback`, { body: { type: 4, data: { content: 'ok' } }, auth: false });
    expect(cb.status).toBe(204);
    expect(cmd.view().response?.content).toBe('ok');
  });

  it('lets discord.js wait on an empty bucket (rateLimited event, no 429 reaches the fake)', async () => {
    h = await startHarness({ rateLimits: { routes: { createMessage: { limit: 2, windowMs: 300 } } } });
    const client = await h.login();
    const events: RateLimitData[] = [];
    client.rest.on(RESTEvents.RateLimited, (d) => void events.push(d));
    const channel = (await client.channels.fetch(h.server.channelId('general'))) as TextChannel;
    await Promise.all([1, 2, 3].map((i) => channel.send(`m${i}`)));
    expect(events.length).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({ route: '/channels/:id/messages', majorParameter: h.server.channelId('general'), limit: 2, global: false });
    expect(h.server.rateLimitedCount()).toBe(0);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: m1', 'penguin-bot: m2', 'penguin-bot: m3']);
  });

  it('retries a hidden per-message limit after the 429, or throws RateLimitError with rejectOnRateLimit', async () => {
    h = await startHarness({ rateLimits: { perMessageEdit: { limit: 1, windowMs: 200 } } });
    const client = await h.login();
    const channel = (await client.channels.fetch(h.server.channelId('general'))) as TextChannel;
    const msg = await channel.send('v0');
    await msg.edit('v1');
    await msg.edit('v2');
    expect(h.server.rateLimitedCount('editMessage')).toBe(1);
    expect(h.server.messageView(msg.id).versions).toEqual(['v0', 'v1', 'v2']);

    const strict = await h.login(h.client({ rest: { rejectOnRateLimit: ['/channels'] } }));
    const ch2 = (await strict.channels.fetch(h.server.channelId('general'))) as TextChannel;
    const m2 = await ch2.send('w0');
    await m2.edit('w1');
    const err = await rejection(m2.edit('w2'));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ route: '/channels/:id/messages/:id', global: false, scope: 'user' });
    expect(err.retryAfter).toBeGreaterThan(0);
  });

  it('spends the daily command-create budget and answers 30034 as a shared 429', async () => {
    h = await startHarness({ commandCreateBudget: { limit: 2, windowMs: 86_400_000 } });
    const client = await h.login(h.client({ rest: { rejectOnRateLimit: ['/applications'] } }));
    const g = h.server.defaultGuild.id;
    await client.application!.commands.set([{ name: 'a', description: 'a' }, { name: 'b', description: 'b' }], g);
    const err = await rejection(client.application!.commands.set([{ name: 'a', description: 'a' }, { name: 'c', description: 'c' }], g));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.scope).toBe('shared');
    const call = h.server.callsTo('bulkOverwriteGuildCommands')[1];
    expect(call).toMatchObject({ status: 429, error: { code: 30034, message: 'Max number of daily application command creates has been reached (2)', global: false } });
    expect(h.server.commandCreates(g)).toBe(2);
  });
});

describe('faults and protocol edges', () => {
  it('forces API errors, 5xx pages, connection resets and slow answers', async () => {
    h = await startHarness({ rateLimits: false });
    const client = await h.login(h.client({ rest: { timeout: 300 } }));
    const channel = (await client.channels.fetch(h.server.channelId('general'))) as TextChannel;

    h.server.failNext({ route: 'createMessage', with: { code: 50013 } });
    const denied = await rejection(channel.send('a'));
    expect(denied).toBeInstanceOf(DiscordAPIError);
    expect([denied.status, denied.code]).toEqual([403, 50013]);
    expect(h.server.callsTo('createMessage')[0].forced).toBe(true);

    h.server.failNext({ route: 'POST /channels/:channel/messages', majorId: channel.id, times: 2, with: { httpStatus: 502 } });
    await channel.send('after two 502s');
    expect(h.server.callsTo('createMessage').slice(1).map((c) => c.status)).toEqual([502, 502, 200]);

    // Outside jest @discordjs/rest retries resets and timeouts; inside jest its `instanceof Error` check
    // fails for errors made by Node itself (another realm), so they reach the caller.
    h.server.failNext({ route: 'createMessage', with: 'reset' });
    expect((await rejection(channel.send('reset'))).code).toBe('ECONNRESET');
    h.server.failNext({ route: 'createMessage', with: { delayMs: 600 } });
    expect((await rejection(channel.send('slow'))).name).toBe('AbortError');
    h.server.failNext({ route: 'createMessage', with: 'disconnect' });
    expect((await rejection(channel.send('cut'))).code).toBe('UND_ERR_SOCKET');
    h.server.failNext({ route: 'createMessage', with: { delayMs: 50 } });
    await channel.send('a little late');
    expect(h.server.transcript('general')).toEqual(['penguin-bot: after two 502s', 'penguin-bot: a little late']);

    h.server.failNext({ route: 'createMessage', with: { rateLimit: 0.1 } });
    await channel.send('after a forced 429');
    expect(h.server.rateLimitedCount('createMessage')).toBe(1);
  });

  it('requires the bot token except on interaction and webhook routes, and answers unknown routes', async () => {
    h = await startHarness();
    const noAuth = await h.raw('GET', '/users/@me', { auth: false });
    expect([noAuth.status, noAuth.body]).toEqual([401, { message: '401: Unauthorized', code: 0 }]);
    const wrong = await h.raw('GET', '/users/@me', { auth: 'Bot nope' });
    expect(wrong.status).toBe(401);
    const me = await h.raw('GET', '/users/@me');
    expect(me.body).toMatchObject({ id: h.server.applicationId, bot: true, username: 'penguin-bot' });
    const gw = await h.raw('GET', '/gateway/bot');
    expect(gw.body).toEqual({ url: h.server.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 } });
    const unknownWebhook = await h.raw('PATCH', `/webhooks/${h.server.applicationId}/nope/messages/@original`, { body: { content: 'x' }, auth: false });
    expect([unknownWebhook.status, unknownWebhook.body.code]).toEqual([404, 10015]);
    expect((await h.raw('GET', '/nothing/here')).body).toEqual({ message: '404: Not Found', code: 0 });
    expect((await h.raw('DELETE', '/users/@me')).status).toBe(405);
  });
});
