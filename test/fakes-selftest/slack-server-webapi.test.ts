/**
 * The fake Slack Web API driven by the real @slack/web-api WebClient: answer shapes, errors as
 * WebAPIPlatformError with `data.error`, both body encodings and both token placements, Block Kit and
 * text limits, message edits / deletes / ephemerals / reactions, conversation access, scopes and
 * account state, per-method × workspace rate limits (429 + Retry-After) and forced faults.
 */
import { ErrorCode, WebClient, WebClientEvent, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { ManualClock } from '../fakes/slack-clock';
import { quietLogger, rejection, startSlackHarness, type SlackHarness } from './slack-harness';

let h: SlackHarness;
afterEach(async () => {
  await h?.cleanup();
});

const platformError = async (p: Promise<unknown>): Promise<WebAPIPlatformError> => {
  const err = await rejection<WebAPIPlatformError>(p);
  expect(err.code).toBe(ErrorCode.PlatformError);
  return err;
};

describe('auth and shapes', () => {
  it('answers auth.test like Slack and refuses bad, missing and wrong-kind tokens', async () => {
    h = await startSlackHarness();
    const web = h.web();
    const me = await web.auth.test();
    expect(me).toMatchObject({
      ok: true, url: 'https://fake-workspace.slack.com/', team: 'Fake Workspace', team_id: h.server.team.id, user_id: h.server.bot.userId,
      bot_id: h.server.bot.botId,
    });
    expect((await platformError(h.web({}, 'xoxb-wrong').auth.test())).data.error).toBe('invalid_auth');
    expect((await h.raw('auth.test', {}, { token: null })).body).toEqual({ ok: false, error: 'not_authed' });
    const app = h.web({}, h.server.appToken);
    expect((await platformError(app.chat.postMessage({ channel: h.server.defaultChannel, text: 'x' }))).data.error).toBe('not_allowed_token_type');
    expect((await platformError(web.apps.connections.open({}))).data.error).toBe('not_allowed_token_type');
    expect((await app.apps.connections.open({})).url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[\w-]+&app_id=A0000FAKEA$/);
    const unknown = await platformError(web.apiCall('chat.frobnicate', {}));
    expect(unknown.data).toMatchObject({ ok: false, error: 'unknown_method', req_method: 'chat.frobnicate' });
  });

  it('reads form and JSON bodies, Bearer and body tokens; the SDK JSON-encodes blocks inside its form', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*hi*' } }];
    const viaJson = await h.raw('chat.postMessage', { channel: 'general', text: 'json', blocks });
    const viaForm = await h.raw('chat.postMessage', { channel: '#general', text: 'form', blocks }, { encoding: 'form', tokenIn: 'body' });
    expect(viaJson).toMatchObject({ status: 200, body: { ok: true, channel: h.server.defaultChannel } });
    expect(viaForm.body).toMatchObject({ ok: true, message: { text: 'form', blocks: [{ type: 'section', block_id: expect.any(String) }] } });

    await h.web().chat.postMessage({ channel: h.server.defaultChannel, text: 'sdk', blocks, unfurl_links: false });
    const call = h.server.callsTo('chat.postMessage')[2];
    expect(typeof call.params.blocks).toBe('string');
    expect(JSON.parse(call.params.blocks as string)).toEqual(blocks);
    expect(call.params.unfurl_links).toBe('false');
    expect(call).toMatchObject({ tokenKind: 'bot', channel: h.server.defaultChannel, status: 200, ok: true });
    expect(h.server.channelState('general').messages.map((m) => [m.text, m.visibleText])).toEqual([
      ['json', '*hi*'], ['form', '*hi*'], ['sdk', '*hi*'],
    ]);
  });
});

describe('messages', () => {
  it('posts into threads (a reply to a reply files under the parent), broadcasts, metadata and IMs by user id', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const user = h.server.message('general', 'U0000ALICE', 'question?');
    const a = await web.chat.postMessage({ channel: h.server.defaultChannel, thread_ts: user.ts, text: 'answer' });
    const b = await web.chat.postMessage({ channel: h.server.defaultChannel, thread_ts: a.ts!, text: 'more', reply_broadcast: true });
    const meta = await web.chat.postMessage({ channel: h.server.defaultChannel, text: 'm', metadata: { event_type: 'task', event_payload: { id: 1 } } });
    expect(b.message).toMatchObject({ thread_ts: user.ts, parent_user_id: 'U0000ALICE' });
    expect(Number(a.ts)).toBeGreaterThan(Number(user.ts));
    expect(h.server.threadTexts('general', user.ts)).toEqual(['question?', 'answer', 'more']);
    expect(h.server.channelState('general').messages.map((m) => m.text)).toEqual(['question?', 'more', 'm']);
    expect(h.server.messageState(meta.ts!)!.metadata).toEqual({ event_type: 'task', event_payload: { id: 1 } });

    const dm = await web.chat.postMessage({ channel: 'U0000ALICE', text: 'psst' });
    expect(dm.channel).toMatch(/^D/);
    expect(dm.channel).toBe(h.server.dm('U0000ALICE'));
    expect((await web.conversations.info({ channel: dm.channel! })).channel).toMatchObject({ is_im: true, user: 'U0000ALICE' });
    expect((await web.conversations.info({ channel: 'C0000GENRL' })).channel).toMatchObject({ is_channel: true, is_private: false, is_member: true, name: 'general' });
    const priv = h.server.addChannel({ name: 'secret', kind: 'private' });
    expect((await web.conversations.info({ channel: priv })).channel).toMatchObject({ is_channel: false, is_group: true, is_private: true });
    expect((await web.users.info({ user: 'U0000ALICE' })).user).toMatchObject({ id: 'U0000ALICE', name: 'alice', profile: { display_name: 'alice', real_name: 'Alice Example' } });
    expect((await platformError(web.users.info({ user: 'U404' }))).data.error).toBe('user_not_found');
  });

  it('refuses oversize text and blocks with the codes Slack uses', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const channel = h.server.defaultChannel;
    const section = (n: number) => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(n) } });
    const tooLong = await platformError(web.chat.postMessage({ channel, text: 't', blocks: [section(3001)] }));
    expect(tooLong.data).toMatchObject({ error: 'invalid_blocks', errors: ['must be less than 3001 characters [json-pointer:/blocks/0/text/text]'] });
    await web.chat.postMessage({ channel, text: 't', blocks: [section(3000)] });
    const many = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect((await platformError(web.chat.postMessage({ channel, text: 't', blocks: many }))).data.error).toBe('invalid_blocks');
    const button = (over: Record<string, unknown> = {}) => ({ type: 'button', text: { type: 'plain_text', text: 'Go' }, action_id: 'go', value: 'v', ...over });
    const actions = (els: unknown[]) => [{ type: 'actions', elements: els }];
    for (const bad of [
      actions(Array.from({ length: 26 }, (_, i) => button({ action_id: `a${i}` }))),
      actions([button({ text: { type: 'plain_text', text: 'L'.repeat(76) } })]),
      actions([button({ action_id: 'a'.repeat(256) })]),
      actions([button({ value: 'v'.repeat(2001) })]),
    ]) {
      expect((await platformError(web.chat.postMessage({ channel, text: 't', blocks: bad as never }))).data.error).toBe('invalid_blocks');
    }
    await web.chat.postMessage({ channel, text: 't', blocks: actions([button({ text: { type: 'plain_text', text: 'L'.repeat(75) }, value: 'v'.repeat(2000) })]) as never });
    const md = (n: number) => ({ type: 'markdown', text: 'm'.repeat(n) });
    expect((await platformError(web.chat.postMessage({ channel, text: 't', blocks: [md(6000), md(6001)] as never }))).data.error).toBe('msg_blocks_too_long');
    expect((await h.raw('chat.postMessage', { channel, text: 't', blocks: '[{"type":' }, { encoding: 'form' })).body.error).toBe('invalid_blocks_format');
    expect((await platformError(web.chat.postMessage({ channel, text: '' }))).data.error).toBe('no_text');
    expect((await platformError(web.chat.postMessage({ channel, markdown_text: 'm'.repeat(12_001) }))).data.error).toBe('msg_too_long');

    const long = await web.chat.postMessage({ channel, text: 'y'.repeat(40_001) });
    expect(long.response_metadata?.warnings).toEqual(['message_truncated']);
    expect(h.server.messageState(long.ts!)!.text).toHaveLength(40_000);
    expect((await platformError(web.chat.update({ channel, ts: long.ts!, text: 'z'.repeat(40_001) }))).data.error).toBe('msg_too_long');
  });

  it('edits (keeping omitted blocks), deletes, sends ephemerals and reactions', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const channel = h.server.defaultChannel;
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Approve?' } }, { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Allow' }, action_id: 'allow' }] }];
    const posted = await web.chat.postMessage({ channel, text: 'Approve?', blocks });
    const upd = await web.chat.update({ channel, ts: posted.ts!, text: 'Approve? (fallback)' });
    expect(upd).toMatchObject({ ok: true, channel, ts: posted.ts, text: 'Approve? (fallback)' });
    expect(h.server.messageState(posted.ts!)).toMatchObject({ visibleText: 'Approve?\n[Allow]', editCount: 1, edited: true });
    await web.chat.update({ channel, ts: posted.ts!, text: 'Allowed', blocks: [] });
    expect(h.server.messageState(posted.ts!)).toMatchObject({ visibleText: 'Allowed', editCount: 2 });
    expect(h.server.messageState(posted.ts!)!.blocks).toBeUndefined();
    await web.chat.update({ channel, ts: posted.ts!, markdown_text: '**done**' });
    expect(h.server.messageState(posted.ts!)!.visibleText).toBe('**done**');

    expect((await platformError(web.chat.update({ channel, ts: '1.000001', text: 'x' }))).data.error).toBe('message_not_found');
    const theirs = h.server.message(channel, 'U0000ALICE', 'mine');
    expect((await platformError(web.chat.update({ channel, ts: theirs.ts, text: 'x' }))).data.error).toBe('cant_update_message');
    expect((await platformError(web.chat.delete({ channel, ts: theirs.ts }))).data.error).toBe('cant_delete_message');
    await web.chat.delete({ channel, ts: posted.ts! });
    expect(h.server.messageState(posted.ts!)).toBeUndefined();
    expect(h.server.channelState(channel).deletedCount).toBe(1);

    const eph = await web.chat.postEphemeral({ channel, user: 'U0000ALICE', text: 'only you', thread_ts: theirs.ts });
    expect(eph.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(h.server.ephemeralFor('U0000ALICE')).toEqual([expect.objectContaining({ channel, text: 'only you', thread_ts: theirs.ts, via: 'api' })]);
    h.server.addUser('U0000BOB00');
    expect((await platformError(web.chat.postEphemeral({ channel, user: 'U0000BOB00', text: 'x' }))).data.error).toBe('user_not_in_channel');

    await web.reactions.add({ channel, timestamp: theirs.ts, name: 'eyes' });
    expect(h.server.messageState(theirs.ts)!.reactions).toEqual([{ name: 'eyes', users: [h.server.bot.userId], count: 1 }]);
    expect((await platformError(web.reactions.add({ channel, timestamp: theirs.ts, name: 'eyes' }))).data.error).toBe('already_reacted');
  });

  it('answers not_in_channel, channel_not_found, missing_scope, account_inactive and token_revoked', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const pub = h.server.addChannel({ name: 'random', botMember: false });
    const priv = h.server.addChannel({ name: 'hidden', kind: 'private', botMember: false });
    expect((await platformError(web.chat.postMessage({ channel: pub, text: 'x' }))).data.error).toBe('not_in_channel');
    expect((await platformError(web.chat.postMessage({ channel: priv, text: 'x' }))).data.error).toBe('channel_not_found');
    expect((await platformError(web.chat.postMessage({ channel: 'C404', text: 'x' }))).data.error).toBe('channel_not_found');
    expect((await web.conversations.info({ channel: pub })).channel).toMatchObject({ is_member: false });
    h.server.setBotMember(pub, true);
    await web.chat.postMessage({ channel: pub, text: 'joined' });

    h.server.setScopes(['chat:write', 'channels:read']);
    const scope = await platformError(web.reactions.add({ channel: pub, timestamp: '1.1', name: 'x' }));
    expect(scope.data).toMatchObject({ error: 'missing_scope', needed: 'reactions:write', provided: 'chat:write,channels:read' });
    h.server.setAccountState('inactive');
    expect((await platformError(web.chat.postMessage({ channel: pub, text: 'x' }))).data.error).toBe('account_inactive');
    h.server.setAccountState('revoked');
    expect((await platformError(web.auth.test())).data.error).toBe('token_revoked');
  });
});

describe('history and the call log', () => {
  it('pages conversations.history / .replies and keeps counts when records are off', async () => {
    h = await startSlackHarness({ rateLimits: false, recordCalls: false });
    const web = h.web();
    const root = h.server.message('general', 'U0000ALICE', 'root');
    await web.chat.postMessage({ channel: 'general', thread_ts: root.ts, text: 'r1' });
    await web.chat.postMessage({ channel: 'general', text: 'top' });
    const hist = await web.conversations.history({ channel: 'general', limit: 1 });
    expect(hist.messages!.map((m) => m.text)).toEqual(['top']);
    expect(hist).toMatchObject({ has_more: true, response_metadata: { next_cursor: '1' } });
    const next = await web.conversations.history({ channel: 'general', limit: 5, cursor: hist.response_metadata!.next_cursor });
    expect(next.messages).toEqual([expect.objectContaining({ text: 'root', reply_count: 1, thread_ts: root.ts })]);
    const replies = await web.conversations.replies({ channel: 'general', ts: root.ts });
    expect(replies.messages!.map((m) => m.text)).toEqual(['root', 'r1']);
    expect(h.server.calls).toEqual([]);
    expect([h.server.callCount('chat.postMessage'), h.server.callCount('conversations.history')]).toEqual([2, 2]);
  });
});

describe('rate limits', () => {
  it('limits chat.update per workspace (not per channel) and says Retry-After; rejectRateLimitedCalls throws WebAPIRateLimitedError', async () => {
    const clock = new ManualClock();
    h = await startSlackHarness({ clock, rateLimits: { 'chat.update': { perMinute: 50 }, 'chat.postMessage': false } });
    const web = h.web({ rejectRateLimitedCalls: true });
    const other = h.server.addChannel({ name: 'other' });
    const a = await web.chat.postMessage({ channel: h.server.defaultChannel, text: 'a' });
    const b = await web.chat.postMessage({ channel: other, text: 'b' });
    for (let i = 0; i < 50; i++) await web.chat.update({ channel: i % 2 ? other : h.server.defaultChannel, ts: i % 2 ? b.ts! : a.ts!, text: `v${i}` });
    const err = await rejection<WebAPIRateLimitedError>(web.chat.update({ channel: other, ts: b.ts!, text: 'late' }));
    expect(err.code).toBe(ErrorCode.RateLimitedError);
    expect(err.retryAfter).toBe(2);
    const raw = await h.raw('chat.update', { channel: other, ts: b.ts!, text: 'late' });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('2');
    expect(raw.body).toEqual({ ok: false, error: 'ratelimited' });
    expect(h.server.rateLimitedCount('chat.update')).toBe(2);
    expect(h.server.channelState(other).rateLimitedCount).toBe(2);
    clock.advance(1200);
    await web.chat.update({ channel: other, ts: b.ts!, text: 'admitted' });
    expect(h.server.messageState(b.ts!)!.text).toBe('admitted');
  });

  it('limits chat.postMessage per channel with a short burst, and can be reconfigured or switched off', async () => {
    const clock = new ManualClock();
    h = await startSlackHarness({ clock });
    const web = h.web({ rejectRateLimitedCalls: true });
    const other = h.server.addChannel({ name: 'other' });
    for (let i = 0; i < 3; i++) await web.chat.postMessage({ channel: h.server.defaultChannel, text: `m${i}` });
    expect((await rejection<WebAPIRateLimitedError>(web.chat.postMessage({ channel: h.server.defaultChannel, text: 'no' }))).retryAfter).toBe(1);
    await web.chat.postMessage({ channel: other, text: 'other channel is fine' });
    clock.advance(1000);
    await web.chat.postMessage({ channel: h.server.defaultChannel, text: 'after a second' });

    h.server.configureRateLimits({ 'chat.postMessage': { perMinute: 1, burst: 1, scope: 'channel' } });
    await web.chat.postMessage({ channel: other, text: 'one' });
    expect((await rejection<WebAPIRateLimitedError>(web.chat.postMessage({ channel: other, text: 'two' }))).retryAfter).toBe(60);
    h.server.setRateLimitsEnabled(false);
    await web.chat.postMessage({ channel: other, text: 'unlimited' });
  });

  it('lets a default WebClient wait out Retry-After and retry on its own', async () => {
    h = await startSlackHarness();
    h.server.failNext({ method: 'chat.postMessage', with: { rateLimited: 1 } });
    const web = new WebClient(h.server.botToken, { slackApiUrl: h.server.apiUrl, logger: quietLogger(), retryConfig: { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 10 } });
    let rateLimitedEvents = 0;
    web.on(WebClientEvent.RATE_LIMITED, () => rateLimitedEvents++);
    const started = Date.now();
    const res = await web.chat.postMessage({ channel: h.server.defaultChannel, text: 'eventually' });
    expect(res.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rateLimitedEvents).toBe(1);
    expect(h.server.callsTo('chat.postMessage').map((c) => [c.status, c.forced])).toEqual([[429, true], [200, false]]);
  });
});

describe('forced faults', () => {
  it('fails the next calls of a method with an error, a raw status, a drop or a delay', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const channel = h.server.defaultChannel;
    h.server.failNext({ method: 'chat.postMessage', times: 2, with: { error: 'fatal_error' } });
    expect((await platformError(web.chat.postMessage({ channel, text: 'x' }))).data.error).toBe('fatal_error');
    expect((await platformError(web.chat.postMessage({ channel, text: 'x' }))).data.error).toBe('fatal_error');
    await web.chat.postMessage({ channel, text: 'fine' });

    h.server.failNext({ method: 'chat.update', with: { httpStatus: 503 } });
    const http = await rejection<{ code: string; statusCode: number }>(web.chat.update({ channel, ts: '1.1', text: 'x' }));
    expect(http).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
    h.server.failNext({ method: 'auth.test', with: 'disconnect' });
    expect((await rejection<{ code: string }>(web.auth.test())).code).toBe(ErrorCode.RequestError);

    const other = h.server.addChannel({ name: 'other' });
    h.server.failNext({ method: 'chat.postMessage', channel: other, with: { delayMs: 150, then: { error: 'service_unavailable' } } });
    await web.chat.postMessage({ channel, text: 'not the faulty channel' });
    expect((await platformError(web.chat.postMessage({ channel: other, text: 'x' }))).data.error).toBe('service_unavailable');
    const slow = h.server.callsTo('chat.postMessage').at(-1)!;
    expect(slow).toMatchObject({ forced: true, channel: other, error: 'service_unavailable' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(140);
    expect(h.server.calls.every((c, i, all) => i === 0 || c.perfAt >= all[i - 1].perfAt)).toBe(true);
  });
});
