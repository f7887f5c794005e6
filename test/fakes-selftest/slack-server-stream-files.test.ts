/**
 * Native streaming, assistant threads and files against the real WebClient: `client.chatStream()`
 * start/append/stop builds the final message (text grows, blocks land under it), the streaming
 * argument rules and errors, status / title / suggested prompts and when a status clears, and
 * `client.filesUploadV2()` end to end plus `url_private` downloads with and without the bot token.
 */
import { ErrorCode, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { ManualClock } from '../fakes/slack-clock';
import { LOGIN_PAGE } from '../fakes/slack-methods-files';
import { rejection, startSlackHarness, type SlackHarness } from './slack-harness';

let h: SlackHarness;
afterEach(async () => {
  await h?.cleanup();
});

const errorOf = async (p: Promise<unknown>): Promise<string> => {
  const err = await rejection<WebAPIPlatformError>(p);
  expect(err.code).toBe(ErrorCode.PlatformError);
  return err.data.error;
};

describe('native streaming', () => {
  it('builds the final message through client.chatStream() as it grows', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const q = h.server.mention('general', 'U0000ALICE', 'explain');
    const streamer = web.chatStream({
      channel: h.server.defaultChannel, thread_ts: q.ts, recipient_team_id: h.server.team.id, recipient_user_id: 'U0000ALICE', buffer_size: 5,
    });
    await streamer.append({ markdown_text: 'Hello' });
    const ts = streamer.ts!;
    expect(h.server.messageState(ts)).toMatchObject({ visibleText: 'Hello', stream: { state: 'in_progress', appends: 0 } });
    await streamer.append({ markdown_text: ' wor' });
    expect(h.server.callCount('chat.appendStream')).toBe(0);
    await streamer.append({ markdown_text: 'ld!' });
    await streamer.append({ chunks: [{ type: 'task_update', id: 't1', title: 'Reading files', status: 'in_progress' }] });
    await streamer.append({ chunks: [{ type: 'task_update', id: 't1', title: 'Reading files', status: 'complete' }] });
    expect(h.server.messageState(ts)!.visibleText).toBe('Hello world!');
    const feedback = [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'Was this helpful?' }] }];
    const stopped = await streamer.stop({ blocks: feedback as never });
    expect(stopped).toMatchObject({ ok: true, ts, message: { text: 'Hello world!', thread_ts: q.ts } });

    expect(h.server.callsTo('chat.startStream')[0].params).toMatchObject({ thread_ts: q.ts, recipient_user_id: 'U0000ALICE' });
    expect(h.server.callsTo('chat.appendStream').map((c) => JSON.parse(c.params.chunks as string)[0].type)).toEqual(['markdown_text', 'task_update', 'task_update']);
    const view = h.server.messageState(ts)!;
    expect(view.stream).toMatchObject({ state: 'completed', appends: 3, tasks: [{ id: 't1', status: 'complete' }] });
    expect(h.server.threadTexts('general', q.ts)).toEqual([`<@${h.server.bot.userId}> explain`, 'Hello world!\nWas this helpful?']);
    expect(await errorOf(web.chat.appendStream({ channel: h.server.defaultChannel, ts, markdown_text: 'more' }))).toBe('message_not_in_streaming_state');
    expect(await errorOf(web.chat.stopStream({ channel: h.server.defaultChannel, ts }))).toBe('message_not_in_streaming_state');
  });

  it('enforces the streaming argument rules and limits', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const channel = h.server.defaultChannel;
    const q = h.server.message('general', 'U0000ALICE', 'hi');
    expect(await errorOf(web.chat.startStream({ channel, thread_ts: q.ts, markdown_text: 'x' }))).toBe('missing_recipient_user_id');
    expect(await errorOf(web.chat.startStream({ channel, thread_ts: q.ts, recipient_user_id: 'U0000ALICE', markdown_text: 'x' }))).toBe('missing_recipient_team_id');
    const noThread = await rejection<WebAPIPlatformError>(web.apiCall('chat.startStream', { channel, markdown_text: 'x', recipient_user_id: 'U0000ALICE', recipient_team_id: 'T0000FAKE1' }));
    expect(noThread.data).toMatchObject({ error: 'invalid_arguments', response_metadata: { messages: ['[ERROR] missing required field: thread_ts'] } });

    const dmq = h.server.dmMessage('U0000ALICE', 'in a DM');
    const started = await web.chat.startStream({ channel: dmq.channel, thread_ts: dmq.ts });
    expect(started).toMatchObject({ ok: true, channel: dmq.channel, ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(await errorOf(web.chat.appendStream({ channel: dmq.channel, ts: started.ts!, markdown_text: 'm'.repeat(12_001) }))).toBe('msg_too_long');
    expect(await errorOf(web.apiCall('chat.appendStream', { channel: dmq.channel, ts: started.ts! }))).toBe('invalid_arguments');
    expect(await errorOf(web.chat.appendStream({ channel: dmq.channel, ts: started.ts!, chunks: [{ type: 'confetti' } as never] }))).toBe('invalid_arguments');
    expect(await errorOf(web.chat.update({ channel: dmq.channel, ts: started.ts!, text: 'edit' }))).toBe('streaming_state_conflict');
    expect(await errorOf(web.chat.appendStream({ channel: dmq.channel, ts: '1.000001', markdown_text: 'x' }))).toBe('message_not_found');
    await web.chat.stopStream({ channel: dmq.channel, ts: started.ts!, markdown_text: 'final' });
    expect(h.server.messageState(started.ts!)).toMatchObject({ visibleText: 'final', stream: { state: 'completed' } });
    await web.chat.update({ channel: dmq.channel, ts: started.ts!, markdown_text: 'edited after the stream' });
  });

  it('rate-limits stream starts at Tier 2 and appends at Tier 4, per workspace', async () => {
    const clock = new ManualClock();
    h = await startSlackHarness({ clock, rateLimits: { 'chat.postMessage': false } });
    const web = h.web({ rejectRateLimitedCalls: true });
    const dm = h.server.dmMessage('U0000ALICE', 'go');
    const ts: string[] = [];
    for (let i = 0; i < 20; i++) ts.push((await web.chat.startStream({ channel: dm.channel, thread_ts: dm.ts })).ts!);
    expect((await rejection<WebAPIRateLimitedError>(web.chat.startStream({ channel: dm.channel, thread_ts: dm.ts }))).retryAfter).toBe(3);
    for (let i = 0; i < 100; i++) await web.chat.appendStream({ channel: dm.channel, ts: ts[i % 20], markdown_text: '.' });
    expect((await rejection<WebAPIRateLimitedError>(web.chat.appendStream({ channel: dm.channel, ts: ts[0], markdown_text: '.' }))).code).toBe(ErrorCode.RateLimitedError);
    expect(h.server.rateLimitedCount()).toBe(2);
  });
});

describe('assistant threads', () => {
  it('keeps status, title and suggested prompts; a status clears on the reply or after two minutes', async () => {
    const clock = new ManualClock();
    h = await startSlackHarness({ clock, rateLimits: false });
    const web = h.web();
    const started = h.server.assistantThreadStarted('U0000ALICE');
    const { channel, ts } = started;
    await web.assistant.threads.setSuggestedPrompts({ channel_id: channel, thread_ts: ts, title: 'Try', prompts: [{ title: 'Summarise', message: 'Summarise this' }] });
    await web.assistant.threads.setTitle({ channel_id: channel, thread_ts: ts, title: 'Planning' });
    const q = h.server.dmMessage('U0000ALICE', 'plan my day', { thread_ts: ts });
    await web.assistant.threads.setStatus({ channel_id: channel, thread_ts: ts, status: 'is thinking…', loading_messages: ['Reading', 'Writing'] });
    expect(h.server.assistantThread(channel, ts)).toMatchObject({
      status: 'is thinking…', loading_messages: ['Reading', 'Writing'], title: 'Planning',
      suggestedPrompts: { title: 'Try', prompts: [{ title: 'Summarise', message: 'Summarise this' }] },
    });
    clock.advance(10);
    await web.chat.postMessage({ channel, thread_ts: q.ts, text: 'Here is a plan' });
    expect(h.server.assistantThread(channel, ts)!.status).toBeUndefined();
    await web.assistant.threads.setStatus({ channel_id: channel, thread_ts: ts, status: 'is still thinking…' });
    clock.advance(120_001);
    expect(h.server.assistantThread(channel, ts)!.status).toBeUndefined();
    expect(h.server.assistantThread(channel, ts)!.statusHistory.map((s) => s.status)).toEqual(['is thinking…', 'is still thinking…']);
    expect(h.server.threadTexts(channel, ts)).toEqual(['plan my day', 'Here is a plan']);
    expect(await errorOf(web.assistant.threads.setSuggestedPrompts({ channel_id: channel, thread_ts: ts, prompts: [] as never }))).toBe('invalid_arguments');
    expect(await errorOf(web.assistant.threads.setStatus({ channel_id: 'D404', thread_ts: ts, status: 'x' }))).toBe('channel_not_found');
  });
});

describe('files', () => {
  it('runs client.filesUploadV2() end to end into a thread and serves url_private to the bot token only', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const web = h.web();
    const q = h.server.message('general', 'U0000ALICE', 'send me the logs');
    const res = await web.filesUploadV2({
      channel_id: h.server.defaultChannel, thread_ts: q.ts, initial_comment: 'Here they are',
      file_uploads: [{ file: Buffer.from('line 1\nline 2\n'), filename: 'app.log' }, { content: '# Notes', filename: 'notes.md', title: 'Notes' }],
    });
    expect(res.ok).toBe(true);
    const files = (res.files as Array<{ files: Array<{ id: string; name: string; url_private: string; size: number }> }>)[0].files;
    expect(files.map((f) => [f.name, f.size])).toEqual([['app.log', 14], ['notes.md', 7]]);
    expect(h.server.callsTo('files.getUploadURLExternal').map((c) => c.params.filename)).toEqual(['app.log', 'notes.md']);
    const [parent, reply] = h.server.thread('general', q.ts);
    expect(parent.text).toBe('send me the logs');
    expect(reply).toMatchObject({ from: 'bot', text: 'Here they are', files: [{ name: 'app.log', title: 'app.log' }, { name: 'notes.md', title: 'Notes' }] });
    expect(reply.files[0].data.toString()).toBe('line 1\nline 2\n');

    const url = files[0].url_private;
    const withToken = await fetch(url, { headers: { authorization: `Bearer ${h.server.botToken}` } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toBe('line 1\nline 2\n');
    for (const headers of [{}, { authorization: 'Bearer xoxb-someone-else' }] as Array<Record<string, string>>) {
      const denied = await fetch(url, { headers });
      expect(denied.status).toBe(200);
      expect(denied.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await denied.text()).toBe(LOGIN_PAGE);
    }
    expect(await errorOf(web.files.getUploadURLExternal({ filename: 'empty.txt', length: 0 }))).toBe('missing_argument');
    expect(await errorOf(web.files.completeUploadExternal({ files: [{ id: 'F404' }] }))).toBe('file_not_found');
  });

  it('gives files a person shares a url_private the bot can fetch (file_share)', async () => {
    h = await startSlackHarness({ rateLimits: false, delivery: 'socket' });
    const shared = h.server.message('general', 'U0000ALICE', 'look', { files: [{ name: 'shot.png', data: Buffer.from([137, 80, 78, 71]), mimetype: 'image/png' }] });
    const event = (shared.delivery.body as { event: Record<string, any> }).event;
    expect(event).toMatchObject({ type: 'message', subtype: 'file_share', channel_type: 'channel', files: [{ name: 'shot.png', mimetype: 'image/png', size: 4 }] });
    const res = await fetch(event.files[0].url_private, { headers: { authorization: `Bearer ${h.server.botToken}` } });
    expect(res.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([137, 80, 78, 71]);
    h.server.setScopes(['chat:write']);
    expect(await (await fetch(event.files[0].url_private, { headers: { authorization: `Bearer ${h.server.botToken}` } })).text()).toBe(LOGIN_PAGE);
  });
});
