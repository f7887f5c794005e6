/**
 * messageToInbound: one MESSAGE_CREATE → the gateway's neutral message, or undefined for what the gateway
 * never acts on (bots, webhooks, the bot itself, system messages, empty or withheld content, guild chatter
 * that does not address the bot). A DM is always addressed (one rolling session per DM channel). In a
 * guild channel, a mention (of the bot or its role, or a reply to it) opens a thread on the user's message:
 * the ref names the thread to be (`openThread`), created when the gateway first answers. In a thread, a
 * mention addresses the bot, and in the bot's own threads any message is a follow-up.
 */
import type { InboundMessage } from '../contract/messages';
import type { DiscordThreadRef } from '../contract/thread-ref';
import { attachmentOf } from './attachments';
import { isThread, takesThreads, type ChannelInfo } from './directory';
import { snowflakeTime, type MessagePayload, type UserPayload } from './payloads';
import { discordThread } from './thread';

/** Message types people write: default and reply. */
const USER_TYPES = new Set([0, 19]);
export const THREAD_NAME_MAX = 100;

export interface InboundContext {
  botId: string;
  isBotRole(guildId: string | undefined, roleId: string): boolean;
  attachmentLimit: number;
}

export interface PendingThread {
  parent: string;
  starter: string;
  name: string;
}

export interface MappedMessage {
  message: InboundMessage;
  /** The thread to open on the user's message before the first answer. */
  openThread?: PendingThread;
}

export const displayName = (u: UserPayload): string => u.global_name || u.username;

/** The text without the bot's mention; other user mentions read as @name. */
export function cleanText(m: MessagePayload, ctx: Pick<InboundContext, 'botId' | 'isBotRole'>): string {
  const names = new Map(m.mentions.map((u) => [u.id, displayName(u)]));
  return m.content
    .replace(/<@!?(\d+)>/g, (all, id: string) => (id === ctx.botId ? '' : names.has(id) ? `@${names.get(id)}` : all))
    .replace(/<@&(\d+)>/g, (all, id: string) => (ctx.isBotRole(m.guild_id, id) ? '' : all))
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A thread name from the first line of what was asked (Discord allows 1–100 characters). */
export function threadName(text: string, fallback: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').replace(/\s+/g, ' ').trim() || fallback;
  const chars = [...line];
  return chars.length <= THREAD_NAME_MAX ? line : `${chars.slice(0, THREAD_NAME_MAX - 1).join('')}…`;
}

function addressed(m: MessagePayload, ctx: InboundContext): boolean {
  return m.mentions.some((u) => u.id === ctx.botId)
    || m.mention_roles.some((r) => ctx.isBotRole(m.guild_id, r))
    || m.referenced_message?.author.id === ctx.botId;
}

/** Where a guild message belongs, and whether it starts a thread; undefined when it is not for the bot. */
function placeOf(m: MessagePayload, guild: string, channel: ChannelInfo | undefined, isAddressed: boolean, ctx: InboundContext, text: string) {
  if (channel && isThread(channel.type)) {
    const followUp = !isAddressed && channel.ownerId === ctx.botId;
    if (!isAddressed && !followUp) return undefined;
    return { thread: discordThread(guild, channel.parentId ?? m.channel_id, m.channel_id), followUp };
  }
  if (!isAddressed) return undefined;
  if (channel && !takesThreads(channel.type)) return { thread: discordThread(guild, m.channel_id), followUp: false };
  const openThread = { parent: m.channel_id, starter: m.id, name: threadName(text, `Question from ${displayName(m.author)}`) };
  return { thread: discordThread(guild, m.channel_id, m.id), followUp: false, openThread };
}

export function messageToInbound(m: MessagePayload, channel: ChannelInfo | undefined, ctx: InboundContext): MappedMessage | undefined {
  if (m.author.bot || m.author.id === ctx.botId || m.webhook_id !== undefined || !USER_TYPES.has(m.type)) return undefined;
  const text = cleanText(m, ctx);
  const attachments = m.attachments.map((a) => attachmentOf(a, ctx.attachmentLimit));
  if (text === '' && attachments.length === 0) return undefined;
  const isDM = m.guild_id === undefined;
  const isAddressed = isDM || addressed(m, ctx);
  const where: { thread: DiscordThreadRef; followUp: boolean; openThread?: PendingThread } | undefined = isDM
    ? { thread: discordThread(null, m.channel_id), followUp: false }
    : placeOf(m, m.guild_id!, channel, isAddressed, ctx, text);
  if (!where) return undefined;
  const sentAt = Date.parse(m.timestamp);
  const message: InboundMessage = {
    platform: 'discord',
    thread: where.thread,
    user: { id: m.author.id, name: displayName(m.author), isBot: false, ...(m.member ? { roles: m.member.roles } : {}) },
    text,
    attachments,
    mentionsBot: isAddressed,
    ...(where.followUp ? { followUp: true } : {}),
    isDM,
    eventId: m.id,
    messageId: m.id,
    ...(m.message_reference?.message_id ? { replyTo: { thread: where.thread, messageId: m.message_reference.message_id } } : {}),
    sentAt: Number.isFinite(sentAt) ? sentAt : snowflakeTime(m.id),
  };
  return where.openThread ? { message, openThread: where.openThread } : { message };
}
