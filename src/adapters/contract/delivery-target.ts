/**
 * Delivery targets: where a message nobody asked for (a scheduled run) goes, written `slack:<team>:<channel>`,
 * `discord:<guild>:<channel>`, `telegram:<chat>[:<topic>]` or `web:<conversation>`. A Telegram chat or topic
 * and a playground conversation are conversations already (`targetThread`); a Slack or Discord channel is
 * where each delivery opens a new thread (`ChannelAdapter.startConversation`). `targetScope` is what routes match.
 */
import type { PlaceScope } from './place';
import type { ThreadRef } from './thread-ref';

export type DeliveryTarget =
  | { platform: 'slack'; team: string; channel: string }
  | { platform: 'discord'; guild: string; channel: string }
  | { platform: 'telegram'; chat: string; topic: string | null }
  | { platform: 'web'; conversation: string };

export const DELIVERY_TARGET_EXPECTED = 'slack:<team>:<channel>, discord:<guild>:<channel>, telegram:<chat>[:<topic>] or web:<conversation>';

export type ParsedTarget = { ok: true; target: DeliveryTarget } | { ok: false; error: string };

const SLACK_ID = /^[A-Z0-9]{2,32}$/;
const SNOWFLAKE = /^\d{1,20}$/;
const TELEGRAM_CHAT = /^(-?\d{1,20}|@[A-Za-z0-9_]{4,32})$/;
const TOPIC = /^\d{1,12}$/;
/** The playground's conversation ids (its HTTP routes accept exactly these). */
const WEB_CONVERSATION = /^[A-Za-z0-9_-]{1,64}$/;

const bad = (error: string): ParsedTarget => ({ ok: false, error });

/** Never throws: the error says which part is wrong and what it should look like. */
export function parseDeliveryTarget(text: string): ParsedTarget {
  const parts = text.split(':');
  const [platform, a, b] = parts;
  const arity = (n: number[], shape: string) => (n.includes(parts.length) ? undefined : `${platform} targets are ${shape}, found ${parts.length - 1} part${parts.length === 2 ? '' : 's'} after "${platform}:"`);
  switch (platform) {
    case 'slack': {
      const e = arity([3], 'slack:<team>:<channel>');
      if (e) return bad(e);
      if (!SLACK_ID.test(a)) return bad(`slack team ${JSON.stringify(a)} is not a Slack id (e.g. T0123ABCD)`);
      if (!SLACK_ID.test(b)) return bad(`slack channel ${JSON.stringify(b)} is not a Slack id (e.g. C0456EFGH)`);
      return { ok: true, target: { platform, team: a, channel: b } };
    }
    case 'discord': {
      const e = arity([3], 'discord:<guild>:<channel>');
      if (e) return bad(e);
      if (!SNOWFLAKE.test(a)) return bad(`discord guild ${JSON.stringify(a)} is not a Discord id (digits)`);
      if (!SNOWFLAKE.test(b)) return bad(`discord channel ${JSON.stringify(b)} is not a Discord id (digits)`);
      return { ok: true, target: { platform, guild: a, channel: b } };
    }
    case 'telegram': {
      const e = arity([2, 3], 'telegram:<chat> or telegram:<chat>:<topic>');
      if (e) return bad(e);
      if (!TELEGRAM_CHAT.test(a)) return bad(`telegram chat ${JSON.stringify(a)} is not a chat id (e.g. 42 or -1001234567890) or @channel name`);
      if (b !== undefined && !TOPIC.test(b)) return bad(`telegram topic ${JSON.stringify(b)} is not a topic id (digits)`);
      return { ok: true, target: { platform, chat: a, topic: b ?? null } };
    }
    case 'web': {
      const e = arity([2], 'web:<conversation>');
      if (e) return bad(e);
      if (!WEB_CONVERSATION.test(a)) return bad(`web conversation ${JSON.stringify(a)} is not 1-64 characters of A-Z a-z 0-9 _ -`);
      return { ok: true, target: { platform, conversation: a } };
    }
    default:
      return bad(`unknown platform ${JSON.stringify(platform)} (expected slack, discord, telegram or web)`);
  }
}

export function formatDeliveryTarget(t: DeliveryTarget): string {
  switch (t.platform) {
    case 'slack':
      return `slack:${t.team}:${t.channel}`;
    case 'discord':
      return `discord:${t.guild}:${t.channel}`;
    case 'telegram':
      return t.topic === null ? `telegram:${t.chat}` : `telegram:${t.chat}:${t.topic}`;
    case 'web':
      return `web:${t.conversation}`;
  }
}

/** The conversation a target already is; undefined for a channel, where a delivery starts a new thread. */
export function targetThread(t: DeliveryTarget): ThreadRef | undefined {
  switch (t.platform) {
    case 'telegram':
      return { platform: 'telegram', chat: t.chat, topic: t.topic };
    case 'web':
      return { platform: 'web', conversation: t.conversation };
    default:
      return undefined;
  }
}

/** The route scope of the target's conversations (the keys a route's `match` compares). */
export function targetScope(t: DeliveryTarget): PlaceScope {
  switch (t.platform) {
    case 'slack':
      return { workspace: t.team, channel: t.channel };
    case 'discord':
      return { guild: t.guild, channel: t.channel };
    case 'telegram':
      return { chat: t.chat };
    case 'web':
      return {};
  }
}
