/**
 * ThreadPlace: where a conversation lives, as the gateway needs to know it, answered by the adapter that
 * owns its platform's rules (gateway.md §3, §6) so the gateway never restates them: the keys a route
 * matches on, the channel a route's access list names, the group the group policy is about (none in a
 * direct conversation), whether it is one-to-one with the bot, and a stable key for per-channel workspaces.
 */
import type { Platform } from './thread-ref';

/** What a route's `match` compares: Slack workspace + channel, Discord guild + (parent) channel, Telegram chat. */
export interface PlaceScope {
  workspace?: string;
  guild?: string;
  chat?: string;
  channel?: string;
}

export interface ThreadPlace {
  platform: Platform;
  scope: PlaceScope;
  /** The channel (Telegram: chat; web: conversation) that route `access.channels` lists. */
  channel: string;
  /** Telegram group chat, Discord guild, Slack workspace; absent in a direct conversation. */
  group?: string;
  /** One user and the bot (a DM, a private chat, the playground). */
  direct: boolean;
  /** Stable and unique per channel: names the `per_channel` workspace of the conversation. */
  workspaceKey: string;
}
