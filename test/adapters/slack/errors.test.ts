/**
 * classifySlackError on what @slack/web-api really throws against the fake Slack (no retries, 429s
 * rejected), per platforms.md "Retry vs surface": 429 with Retry-After, 5xx and dropped connections retry;
 * too long re-splits; refused blocks go plain; a gone message posts anew; refused streams fall back; auth,
 * missing scopes (named), unreachable channels and inactive workspaces surface. Plus the pure code table.
 */
import { LogLevel, WebClient } from '@slack/web-api';
import { classifySlackCode, classifySlackError } from '../../../src/adapters/slack/errors';
import { FakeSlackServer } from '../../fakes/slack-server';

let server: FakeSlackServer;
let web: WebClient;
beforeEach(async () => {
  server = new FakeSlackServer({ rateLimits: false });
  const { apiUrl, botToken } = await server.start();
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, setLevel: () => undefined, getLevel: () => LogLevel.ERROR, setName: () => undefined };
  web = new WebClient(botToken, { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 5000, logger: quiet });
});
afterEach(() => server.stop());

async function failure(method: string, call: () => Promise<unknown>) {
  try {
    await call();
  } catch (err) {
    return classifySlackError(err, method);
  }
  throw new Error('expected the call to fail');
}

const post = () => web.chat.postMessage({ channel: server.defaultChannel, text: 'hi' });

it('classifies what the SDK throws', async () => {
  server.failNext({ method: 'chat.postMessage', with: { rateLimited: 7 } });
  expect((await failure('chat.postMessage', post)).classification).toEqual({ kind: 'retry', retryAfterMs: 7000, scope: 'method' });
  server.failNext({ method: 'chat.postMessage', with: { httpStatus: 503 } });
  expect((await failure('chat.postMessage', post)).classification).toEqual({ kind: 'retry' });
  server.failNext({ method: 'chat.postMessage', with: 'disconnect' });
  expect((await failure('chat.postMessage', post)).classification).toEqual({ kind: 'retry' });
  server.failNext({ method: 'chat.postMessage', with: { error: 'msg_too_long' } });
  expect((await failure('chat.postMessage', post)).classification).toEqual({ kind: 'degrade', reason: 'too_long' });

  server.setScopes(['channels:read']);
  const scope = await failure('chat.postMessage', post);
  expect(scope.classification).toEqual({ kind: 'surface', reason: 'permission' });
  expect(scope.message).toBe('chat.postMessage: missing_scope (the app needs the chat:write scope)');
  server.setScopes(['chat:write']);

  server.setAccountState('inactive');
  expect((await failure('chat.postMessage', post)).classification).toEqual({ kind: 'surface', reason: 'auth' });
  server.setAccountState('active');

  const privateChannel = server.addChannel({ name: 'secret', kind: 'private', botMember: false });
  expect((await failure('chat.postMessage', () => web.chat.postMessage({ channel: privateChannel, text: 'x' }))).classification).toEqual({ kind: 'surface', reason: 'permission' });
  expect((await failure('chat.update', () => web.chat.update({ channel: server.defaultChannel, ts: '1.000001', text: 'x' }))).classification).toEqual({ kind: 'degrade', reason: 'gone' });
  const tooLongButton = [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'x'.repeat(80) }, action_id: 'a' }] }];
  expect((await failure('chat.postMessage', () => web.chat.postMessage({ channel: server.defaultChannel, text: 'x', blocks: tooLongButton }))).classification).toEqual({ kind: 'degrade', reason: 'too_long' });
  const emptyMarkdown = [{ type: 'markdown', text: '' }];
  expect((await failure('chat.postMessage', () => web.chat.postMessage({ channel: server.defaultChannel, text: 'x', blocks: emptyMarkdown as never }))).classification).toEqual({ kind: 'degrade', reason: 'format' });
  expect((await failure('chat.startStream', () => web.chat.startStream({ channel: server.defaultChannel, thread_ts: '1.000001', markdown_text: 'x' }))).classification).toEqual({ kind: 'degrade', reason: 'draft_unsupported' });
});

it('rejects a wrong token as auth, and never throws on anything', () => {
  expect(classifySlackCode('invalid_auth', 'chat.postMessage')).toEqual({ kind: 'surface', reason: 'auth' });
  expect(classifySlackCode('not_in_channel', 'chat.postMessage')).toEqual({ kind: 'surface', reason: 'permission' });
  expect(classifySlackCode('channel_not_found', 'chat.update')).toEqual({ kind: 'surface', reason: 'permission' });
  expect(classifySlackCode('already_reacted', 'reactions.add')).toEqual({ kind: 'ignore', reason: 'already_acknowledged' });
  expect(classifySlackCode('message_not_in_streaming_state', 'chat.appendStream')).toEqual({ kind: 'degrade', reason: 'draft_unsupported' });
  expect(classifySlackCode('something_new', 'chat.postMessage')).toEqual({ kind: 'retry' });
  const hostile = new Proxy({}, { get: () => { throw new Error('no'); } });
  expect(classifySlackError(hostile).classification.kind).toBe('retry');
  const e = classifySlackError(new Error('boom'));
  expect(classifySlackError(e)).toBe(e);
});
