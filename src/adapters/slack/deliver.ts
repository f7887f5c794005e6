/**
 * Deliveries into a Slack channel (`deliver_to = "slack:<team>:<channel>"`, a scheduled run): the first
 * message of a new conversation goes to the channel's top level, and the thread rooted at it
 * (`slack:<team>:<channel>:<ts>`) is where the run's reply goes and where people continue the session. A
 * target in another workspace than the bot's is refused (a surfaced invalid_request naming both), never posted
 * with this workspace's token. A channel the bot cannot post in (not_in_channel, channel_not_found,
 * is_archived) keeps Slack's classification and code, with a message saying what to do about it.
 */
import type { DeliveryTarget } from '../contract/delivery-target';
import { PlatformError } from '../contract/errors';
import { badTarget } from './thread';

/** Who the bot is, as far as a delivery needs it (from auth.test). */
export interface DeliveryIdentity {
  team: string;
  teamName?: string;
  user?: string;
}

/** The channel a target names in the bot's own workspace; throws a surfaced PlatformError otherwise. */
export function deliveryChannel(target: DeliveryTarget, me: DeliveryIdentity | undefined): { team: string; channel: string } {
  if (target.platform !== 'slack') throw badTarget(`the Slack adapter cannot deliver to a ${target.platform} target`);
  if (!me) throw badTarget('the Slack adapter has not connected to Slack yet');
  if (target.team !== me.team) {
    const name = me.teamName ? ` (${me.teamName})` : '';
    throw badTarget(`slack:${target.team}:${target.channel} is in workspace ${target.team}, but this gateway's Slack bot is installed in ${me.team}${name}`);
  }
  return { team: target.team, channel: target.channel };
}

/** A refusal of the first post, in words an operator can act on; other errors pass through unchanged. */
export function explainRefusal(err: PlatformError, target: { team: string; channel: string }, me: DeliveryIdentity | undefined): PlatformError {
  const bot = me?.user ? `@${me.user}` : 'the bot';
  const why = (() => {
    switch (err.code) {
      case 'not_in_channel':
        return `${bot} is not a member of channel ${target.channel}: invite it there (/invite ${bot})`;
      case 'channel_not_found':
        return `${bot} can see no channel ${target.channel} in workspace ${target.team} (a private channel needs it invited first)`;
      case 'is_archived':
        return `channel ${target.channel} is archived`;
      default:
        return undefined;
    }
  })();
  if (!why) return err;
  return new PlatformError('slack', err.classification, `${why} (${err.message})`, { code: err.code, cause: err });
}
