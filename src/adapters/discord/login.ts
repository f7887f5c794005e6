/**
 * Why the adapter could not connect, in words the operator can act on: a rejected token (REST 401, or the
 * gateway's close 4004 at identify), a privileged intent the application lacks (4014) or invalid intents
 * (4013), read from the errors @discordjs/ws raises for those closes; another fatal close code; or the
 * failure as it came (unreachable REST root, no READY in time). Never includes the token.
 */
import { closeCodeDetail } from './health';
import { classifyDiscordError } from './errors';

const get = (o: unknown, k: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined);

export function loginError(err: unknown): Error {
  if (typeof err === 'number') return new Error(closeCodeDetail(err));
  const message = typeof get(err, 'message') === 'string' ? (get(err, 'message') as string) : '';
  if (get(err, 'status') === 401 || /^authentication failed/i.test(message)) {
    return new Error('Discord rejected the bot token: check DISCORD_BOT_TOKEN or DISCORD_TOKEN (Developer Portal → Bot → Reset Token)', { cause: err });
  }
  if (/disallowed intent/i.test(message)) return new Error(closeCodeDetail(4014), { cause: err });
  if (/invalid intent/i.test(message)) return new Error(closeCodeDetail(4013), { cause: err });
  return new Error(`Discord login failed: ${classifyDiscordError(err).message}`, { cause: err });
}
