/**
 * doctor's Slack check against the fake Slack: a token with every scope the adapter uses passes; one whose
 * app lacks scopes fails, naming each missing scope and how to add it.
 */
import { checkSlack } from '../../../src/gateway/cli/doctor/platforms';
import { DEFAULTS } from '../../../src/gateway/config/schema';
import { SLACK_BOT_SCOPES } from '../../../src/adapters/slack/scopes';
import { FakeSlackServer } from '../../fakes/slack-server';

let server: FakeSlackServer;
afterEach(() => server.stop());

async function check(scopes: string[]) {
  server = new FakeSlackServer({ scopes, rateLimits: false });
  const { apiUrl, botToken } = await server.start();
  return checkSlack({
    enabled: true, configured: true, dm_policy: 'pairing', group_policy: 'open', streaming: DEFAULTS.streaming.slack, bot_token: botToken, api_url: apiUrl, mode: 'http',
    thread_follow_up: true, native_streaming: true, socket_silence_ms: 0,
  }, 5000);
}

it('passes a token with every scope the adapter uses', async () => {
  const r = await check(Object.keys(SLACK_BOT_SCOPES));
  expect(r).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^bot penguin in workspace Fake Workspace \(T0000FAKE1\) via .*, HTTP events at POST \/slack\/events$/) });
});

it('names the scopes the installed app lacks', async () => {
  const r = await check(Object.keys(SLACK_BOT_SCOPES).filter((s) => s !== 'files:read' && s !== 'users:read'));
  expect(r).toMatchObject({ status: 'fail', detail: expect.stringMatching(/lacks the scopes users:read, files:read$/), fix: expect.stringContaining('reinstall') });
});
