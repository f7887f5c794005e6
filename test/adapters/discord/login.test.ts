/**
 * loginError: what the operator reads when the Discord adapter cannot connect. The gateway's fatal closes at
 * identify arrive as the errors @discordjs/ws raises for them (its own messages, as below); a REST answer of
 * 401 is a rejected token; a bare close code reads as its detail; anything else keeps its own message.
 */
import { closeCodeDetail } from '../../../src/adapters/discord/health';
import { loginError } from '../../../src/adapters/discord/login';

const TOKEN = /^Discord rejected the bot token: check DISCORD_BOT_TOKEN/;

it('reads a rejected token from REST (401) and from the gateway (close 4004 at identify)', () => {
  expect(loginError(Object.assign(new Error('401: Unauthorized'), { status: 401 })).message).toMatch(TOKEN);
  expect(loginError(new Error('Authentication failed')).message).toMatch(TOKEN);
});

it('names the intent the gateway refused', () => {
  expect(loginError(new Error('Used disallowed intents')).message).toBe(closeCodeDetail(4014));
  expect(loginError(new Error('Used invalid intents')).message).toBe(closeCodeDetail(4013));
});

it('reads a close code as its detail and keeps any other failure as it came', () => {
  expect(loginError(4010).message).toBe(closeCodeDetail(4010));
  expect(loginError(new Error('Discord did not send READY in time')).message).toBe('Discord login failed: Discord did not send READY in time');
  expect(loginError(new Error('Discord did not send READY in time')).cause).toBeInstanceOf(Error);
});
