/**
 * The Slack budgets a call draws from (platforms.md §1, §5), broadest first. Slack limits per method ×
 * workspace, not per channel: chat.update (Tier 3, ~50/min) is shared by every thread of a workspace, as
 * are the stream methods (start/stop Tier 2, append Tier 4) and reactions. chat.postMessage adds ~1/s per
 * channel, setStatus a per-channel budget. Each limit stays ~10% under Slack's, because the governor counts
 * a call when it leaves and Slack when it arrives. A stream's stop also draws on chat.update: it settles
 * the message with an update. Keys are `slack:<team>:<method>[:<channel>]`.
 */
import type { RateLimit, RateOp, RateScope } from '../contract/rate';
import type { ThreadRef } from '../contract/thread-ref';
import { slackTarget } from './thread';

const perMinute = (count: number, burst = count): RateLimit => ({ count, perMs: 60_000, burst });

export const SLACK_RATES = {
  postWorkspace: perMinute(270, 90),
  // ~1 message a second per channel with a short burst
  postChannel: { count: 1, perMs: 1_100, burst: 2 },
  update: perMinute(45),
  delete: perMinute(45),
  streamStart: perMinute(18),
  streamAppend: perMinute(90),
  streamStop: perMinute(18),
  reaction: perMinute(45),
  ephemeral: perMinute(90),
  // assistant.threads.setStatus: about one a second per channel
  statusChannel: { count: 1, perMs: 1_200, burst: 3 },
} satisfies Record<string, RateLimit>;

function method(team: string, name: string, limit: RateLimit): RateScope {
  return { key: `slack:${team}:${name}`, limit, level: 'method' };
}

function channelScope(team: string, name: string, channel: string, limit: RateLimit): RateScope {
  return { key: `slack:${team}:${name}:${channel}`, limit, level: 'chat' };
}

/** chat.postMessage in a channel: the workspace's budget, then the channel's (a thread's or a new top-level message alike). */
export function slackPostScopes(team: string, channel: string): RateScope[] {
  return [method(team, 'chat.postMessage', SLACK_RATES.postWorkspace), channelScope(team, 'chat.postMessage', channel, SLACK_RATES.postChannel)];
}

export function slackRateScopes(thread: ThreadRef, op: RateOp): RateScope[] {
  const { team, channel } = slackTarget(thread);
  switch (op) {
    case 'post':
    case 'draft':
      return slackPostScopes(team, channel);
    case 'edit':
      return [method(team, 'chat.update', SLACK_RATES.update)];
    case 'delete':
      return [method(team, 'chat.delete', SLACK_RATES.delete)];
    case 'stream_start':
      return [method(team, 'chat.startStream', SLACK_RATES.streamStart)];
    case 'stream_append':
      return [method(team, 'chat.appendStream', SLACK_RATES.streamAppend)];
    case 'stream_stop':
      return [method(team, 'chat.update', SLACK_RATES.update), method(team, 'chat.stopStream', SLACK_RATES.streamStop)];
    case 'typing':
      return [channelScope(team, 'assistant.threads.setStatus', channel, SLACK_RATES.statusChannel)];
    case 'reaction':
      return [method(team, 'reactions.add', SLACK_RATES.reaction)];
    case 'ephemeral':
      return [method(team, 'chat.postEphemeral', SLACK_RATES.ephemeral)];
  }
}
