/**
 * Events API and interactivity over signed HTTP, driven against a real Bolt App on its default
 * HTTPReceiver (127.0.0.1): url_verification, an app_mention answered with say() in the thread,
 * forged and stale signatures refused (401), DMs and subtypes, block_actions with ack() + respond() /
 * chat.update, slash commands, the Assistant flow, and Slack's redelivery rules (timeout, non-2xx,
 * X-Slack-No-Retry, manual redelivery with X-Slack-Retry-Num and the same event_id).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Assistant } from '@slack/bolt';
import { ManualClock } from '../fakes/slack-clock';
import { slackSignature } from '../fakes/slack-http-delivery';
import { startSlackHarness, type SlackHarness } from './slack-harness';

let h: SlackHarness;
let raw: http.Server | undefined;
afterEach(async () => {
  raw?.closeAllConnections();
  if (raw) await new Promise<void>((r) => raw!.close(() => r()));
  raw = undefined;
  await h?.cleanup();
});

/** A bare receiver for exact control over answers; records every request. */
async function rawReceiver(answer: (n: number, req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> }> {
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  raw = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      answer(seen.length, req, res);
    });
  });
  await new Promise<void>((r) => raw!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/slack/events`, seen };
}

describe('HTTP mode with Bolt', () => {
  it('answers url_verification and replies in the thread to a signed app_mention', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const { app } = await h.boltHttp();
    const seen: Array<Record<string, any>> = [];
    app.event('app_mention', async ({ event, body, say, context }) => {
      seen.push({ event, body, retryNum: context.retryNum });
      await say({ text: `Hi <@${event.user}>`, thread_ts: event.thread_ts ?? event.ts });
    });
    const challenge = await h.server.urlVerification('abc123').done;
    expect(challenge).toMatchObject({ state: 'acked', attempts: [{ status: 200, body: JSON.stringify({ challenge: 'abc123' }) }] });

    const m = h.server.mention('general', 'U0000ALICE', 'what is up?');
    await h.server.waitFor(() => h.server.threadTexts('general', m.ts).length === 2);
    expect(h.server.threadTexts('general', m.ts)).toEqual([`<@${h.server.bot.userId}> what is up?`, 'Hi <@U0000ALICE>']);
    const { event, body } = seen[0];
    expect(event).toMatchObject({ type: 'app_mention', user: 'U0000ALICE', channel: h.server.defaultChannel, ts: m.ts, event_ts: m.ts, team: h.server.team.id });
    expect(event.blocks[0].elements[0].elements[0]).toEqual({ type: 'user', user_id: h.server.bot.userId });
    expect(body).toMatchObject({ type: 'event_callback', team_id: h.server.team.id, api_app_id: h.server.bot.appId, event_id: m.delivery.eventId, authorizations: [{ user_id: h.server.bot.userId, is_bot: true }] });
    expect((await m.delivery.done).attempts).toEqual([expect.objectContaining({ retryNum: 0, status: 200, acked: true })]);
  });

  it('refuses forged signatures and stale timestamps with 401 and never runs the handler', async () => {
    h = await startSlackHarness({ rateLimits: false, eventRetryDelaysMs: [] });
    const { app } = await h.boltHttp();
    let handled = 0;
    app.event('app_mention', async () => {
      handled++;
    });
    for (const forge of ['bad-signature', 'stale-timestamp', 'no-signature'] as const) {
      const d = await h.server.mention('general', 'U0000ALICE', 'hello', { forge }).delivery.done;
      expect(d).toMatchObject({ state: 'failed', attempts: [{ status: 401 }] });
    }
    await h.server.mention('general', 'U0000ALICE', 'signed').delivery.done;
    await h.server.waitFor(() => handled === 1);
  });

  it('delivers DMs with channel_type im, edits, other bots and (with echo on) its own posts, which Bolt ignores', async () => {
    h = await startSlackHarness({ rateLimits: false, echoOwnMessages: true });
    const { app } = await h.boltHttp();
    const got: Array<Record<string, any>> = [];
    app.message(async ({ message }) => {
      got.push(message as Record<string, any>);
    });
    const dm = h.server.dmMessage('U0000ALICE', 'hello bot');
    await h.server.waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({ channel_type: 'im', channel: dm.channel, user: 'U0000ALICE', text: 'hello bot', client_msg_id: expect.any(String) });
    await app.client.chat.postMessage({ channel: dm.channel, text: 'my own reply' });
    h.server.editMessage(dm.channel, dm.ts, 'hello bot (edited)');
    h.server.botMessage('general', { text: 'build passed', username: 'ci' });
    await h.server.waitFor(() => got.length === 3);
    await h.server.waitFor(() => h.server.deliveries.every((d) => d.state !== 'pending'));
    expect(h.server.deliveries.filter((d) => (d.body.event as { bot_id?: string }).bot_id === h.server.bot.botId)).toHaveLength(1);
    expect(got.map((m) => m.subtype)).toEqual([undefined, 'message_changed', 'bot_message']);
    expect(got[1]).toMatchObject({ message: { text: 'hello bot (edited)', edited: { user: 'U0000ALICE' } }, previous_message: { text: 'hello bot' } });
  });

  it('handles a block_actions click: ack(), respond() replacing the original, then chat.update', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const { app } = await h.boltHttp();
    const channel = h.server.defaultChannel;
    const prompt = await app.client.chat.postMessage({
      channel, text: 'Run `ls`?', blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Run `ls`?' } },
        { type: 'actions', elements: [
          { type: 'button', text: { type: 'plain_text', text: 'Allow' }, action_id: 'approve', value: 'allow:42', style: 'primary' },
          { type: 'button', text: { type: 'plain_text', text: 'Deny' }, action_id: 'deny', value: 'deny:42', style: 'danger' },
        ] },
      ],
    });
    const clicks: Array<Record<string, any>> = [];
    app.action('approve', async ({ ack, body, action, respond }) => {
      await ack();
      clicks.push({ body, action });
      await respond({ replace_original: true, text: 'Allowed by <@U0000ALICE>' });
    });
    app.action('deny', async ({ ack, body, client }) => {
      await ack();
      const b = body as unknown as { container: { channel_id: string; message_ts: string } };
      await client.chat.update({ channel: b.container.channel_id, ts: b.container.message_ts, text: 'Denied', blocks: [] });
    });
    const click = h.server.clickButton(prompt.ts!, 'allow:42');
    expect(await click.done).toMatchObject({ state: 'acked', attempts: [{ status: 200 }] });
    await h.server.waitFor(() => h.server.messageState(prompt.ts!)?.text === 'Allowed by <@U0000ALICE>');
    const { body, action } = clicks[0];
    expect(action).toMatchObject({ action_id: 'approve', value: 'allow:42', type: 'button', block_id: expect.any(String), action_ts: expect.any(String) });
    expect(body).toMatchObject({
      type: 'block_actions', user: { id: 'U0000ALICE', team_id: h.server.team.id }, team: { id: h.server.team.id }, channel: { id: channel },
      container: { type: 'message', message_ts: prompt.ts, channel_id: channel }, message: { ts: prompt.ts, blocks: expect.any(Array) },
      trigger_id: expect.stringMatching(/^\d+\.\w+\.\w+$/), response_url: click.responseUrl,
    });
    expect(h.server.responseUrl(click.responseUrl)!.uses).toEqual([expect.objectContaining({ action: 'replaced', status: 200 })]);
    expect(h.server.messageState(prompt.ts!)!.blocks).toBeUndefined();

    const second = await app.client.chat.postMessage({ channel, text: 'again', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Deny' }, action_id: 'deny' }] }] });
    await h.server.clickButton(second.ts!, 'Deny').done;
    await h.server.waitFor(() => h.server.messageState(second.ts!)?.visibleText === 'Denied');
    expect(() => h.server.clickButton(second.ts!, 'nope')).toThrow(/no button/);
  });

  it('answers a slash command with ack() and an ephemeral respond()', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const { app } = await h.boltHttp();
    app.command('/penguin', async ({ ack, command, respond }) => {
      await ack();
      await respond({ text: `status for ${command.user_name}: idle (${command.text})` });
    });
    const cmd = h.server.slashCommand('/penguin', 'status');
    await cmd.done;
    await h.server.waitFor(() => h.server.ephemeralFor('U0000ALICE').length === 1);
    expect(h.server.ephemeralFor('U0000ALICE')[0]).toMatchObject({ channel: h.server.defaultChannel, text: 'status for alice: idle (status)', via: 'response_url' });
  });

  it('runs the Bolt Assistant flow: thread started, prompts, a user message, status and reply', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const { app } = await h.boltHttp();
    app.assistant(new Assistant({
      threadStarted: async ({ say, setSuggestedPrompts }) => {
        await say('How can I help?');
        await setSuggestedPrompts({ prompts: [{ title: 'Status', message: 'What is running?' }] });
      },
      userMessage: async ({ message, say, setStatus, setTitle }) => {
        await setTitle((message as { text: string }).text);
        await setStatus('is thinking…');
        await say('Nothing is running.');
      },
    }));
    const started = h.server.assistantThreadStarted('U0000ALICE');
    await h.server.waitFor(() => h.server.assistantThread(started.channel, started.ts)?.suggestedPrompts);
    h.server.dmMessage('U0000ALICE', 'What is running?', { thread_ts: started.ts });
    await h.server.waitFor(() => h.server.threadTexts(started.channel, started.ts).length === 3);
    expect(h.server.threadTexts(started.channel, started.ts)).toEqual(['How can I help?', 'What is running?', 'Nothing is running.']);
    expect(h.server.assistantThread(started.channel, started.ts)).toMatchObject({ title: 'What is running?', statusHistory: [{ status: 'is thinking…' }] });
    expect(h.server.assistantThread(started.channel, started.ts)!.status).toBeUndefined();
  });
});

describe('response_url', () => {
  it('posts in the channel or ephemerally, allows 5 uses within 30 minutes, then refuses', async () => {
    const clock = new ManualClock();
    h = await startSlackHarness({ clock, rateLimits: false, delivery: 'socket' });
    const web = h.web();
    const posted = await web.chat.postMessage({ channel: 'general', text: 'Pick', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'A' }, action_id: 'a' }] }] });
    const { responseUrl } = h.server.clickButton(posted.ts!, 'a', 'U0000ALICE');
    const post = (body: unknown) => fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await (await post({ response_type: 'in_channel', text: 'A was picked', thread_ts: posted.ts })).json()).toEqual({ ok: true });
    await post({ text: 'only you see this' });
    expect(h.server.threadTexts('general', posted.ts!)).toEqual(['[A]', 'A was picked']);
    expect(h.server.ephemeralFor('U0000ALICE')).toEqual([expect.objectContaining({ text: 'only you see this', via: 'response_url' })]);
    for (let i = 0; i < 3; i++) expect((await post({ text: `n${i}` })).status).toBe(200);
    const sixth = await post({ text: 'too many' });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toEqual({ ok: false, error: 'used_url' });

    const fresh = h.server.clickButton(posted.ts!, 'a', 'U0000ALICE');
    clock.advance(30 * 60_000 + 1);
    const late = await fetch(fresh.responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"late"}' });
    expect(await late.json()).toEqual({ ok: false, error: 'expired_url' });
    expect(h.server.responseUrl(fresh.responseUrl)!.uses).toEqual([expect.objectContaining({ action: 'rejected', error: 'expired_url' })]);
  });
});

describe('redelivery', () => {
  it('retries an event that gets no 2xx within the timeout or a 500, with the same event_id and retry headers', async () => {
    h = await startSlackHarness({ rateLimits: false, eventTimeoutMs: 200, eventRetryDelaysMs: [0, 20, 20] });
    const r = await rawReceiver((n, _req, res) => {
      if (n === 1) return; // never answers: Slack gives up after the timeout
      if (n === 2) return void res.writeHead(500).end();
      res.writeHead(200).end();
    });
    h.server.setRequestUrl(r.url);
    const d = await h.server.mention('general', 'U0000ALICE', 'retry me').delivery.done;
    expect(d.state).toBe('acked');
    expect(d.attempts.map((a) => [a.retryNum, a.retryReason, a.status])).toEqual([[0, undefined, undefined], [1, 'http_timeout', 500], [2, 'http_error', 200]]);
    expect(r.seen.map((s) => [s.headers['x-slack-retry-num'], s.headers['x-slack-retry-reason']])).toEqual([[undefined, undefined], ['1', 'http_timeout'], ['2', 'http_error']]);
    expect(new Set(r.seen.map((s) => JSON.parse(s.body).event_id))).toEqual(new Set([d.eventId]));
    for (const s of r.seen) {
      const ts = s.headers['x-slack-request-timestamp'] as string;
      expect(s.headers['x-slack-signature']).toBe(slackSignature(h.server.signingSecret, ts, s.body));
      expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(5);
    }
  });

  it('stops retrying on X-Slack-No-Retry and after the last scheduled retry', async () => {
    h = await startSlackHarness({ rateLimits: false, eventRetryDelaysMs: [0, 10] });
    const r = await rawReceiver((n, _req, res) => res.writeHead(503, n === 4 ? { 'x-slack-no-retry': '1' } : {}).end());
    h.server.setRequestUrl(r.url);
    expect((await h.server.mention('general', 'U0000ALICE', 'a').delivery.done).attempts).toHaveLength(3);
    expect((await h.server.mention('general', 'U0000ALICE', 'b').delivery.done)).toMatchObject({ state: 'failed', attempts: [{ status: 503 }] });
  });

  it('lets a test redeliver an acked event; Bolt does not drop it, so apps must dedupe on event_id', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const { app } = await h.boltHttp();
    const seen: Array<{ id: string; retryNum?: number; reason?: string }> = [];
    app.event('app_mention', async ({ body, context }) => {
      seen.push({ id: (body as { event_id: string }).event_id, retryNum: context.retryNum, reason: context.retryReason });
    });
    const first = await h.server.mention('general', 'U0000ALICE', 'once').delivery.done;
    await h.server.redeliver(first, { reason: 'http_timeout' }).done;
    await h.server.waitFor(() => seen.length === 2);
    expect(seen).toEqual([{ id: first.eventId }, { id: first.eventId, retryNum: 1, reason: 'http_timeout' }]);
  });
});
