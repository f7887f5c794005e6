/**
 * Slack conversations as ThreadRefs (binding key `slack:<team>:<channel>:<thread_ts>`) and back to what the
 * Web API needs: the channel id and the parent message ts every reply goes under (`thread_ts ?? ts`). IM
 * channels (ids starting with D) are direct; every other conversation belongs to its workspace (the group
 * the group policy is about). A ref of another platform throws a surfaced PlatformError.
 */
import { PlatformError } from '../contract/errors';
import type { ThreadPlace } from '../contract/place';
import type { SlackThreadRef, ThreadRef } from '../contract/thread-ref';

export interface SlackTarget {
  team: string;
  channel: string;
  threadTs: string;
}

export function slackThread(team: string, channel: string, threadTs: string): SlackThreadRef {
  return { platform: 'slack', team, channel, threadTs };
}

/** A thread the adapter cannot address is a caller's mistake: surfaced, never retried. */
export function badTarget(message: string): PlatformError {
  return new PlatformError('slack', { kind: 'surface', reason: 'invalid_request' }, message);
}

export function slackTarget(ref: ThreadRef): SlackTarget {
  if (ref.platform !== 'slack') throw badTarget(`the Slack adapter cannot address a ${ref.platform} conversation`);
  if (!ref.team || !ref.channel || !ref.threadTs) throw badTarget('a Slack thread needs a team, a channel and a thread_ts');
  return { team: ref.team, channel: ref.channel, threadTs: ref.threadTs };
}

/** IM channel ids start with D. */
export function isImChannel(channel: string): boolean {
  return channel.startsWith('D');
}

/** The workspace is the route scope and the group; the channel is what route access lists name. */
export function slackPlace(ref: ThreadRef): ThreadPlace {
  const team = ref.platform === 'slack' ? ref.team : '';
  const channel = ref.platform === 'slack' ? ref.channel : '';
  const direct = isImChannel(channel);
  return { platform: 'slack', scope: { workspace: team, channel }, channel, ...(direct ? {} : { group: team }), direct, workspaceKey: `${team}.${channel}` };
}
