/**
 * Discord conversations as ThreadRefs (binding key `discord:<guild|dm>:<channel>:<thread|->`): a DM
 * channel (guild null), a guild channel, or a thread under its parent channel. A thread opened on a
 * message has that message's id, and the message itself lives in the parent: `channelOfMessage` knows.
 * A ref of another platform is a caller's mistake: a surfaced PlatformError.
 */
import { PlatformError } from '../contract/errors';
import type { ThreadPlace } from '../contract/place';
import type { DiscordThreadRef, ThreadRef } from '../contract/thread-ref';

export function discordThread(guild: string | null, channel: string, thread: string | null = null): DiscordThreadRef {
  return { platform: 'discord', guild, channel, thread };
}

export function badTarget(message: string): PlatformError {
  return new PlatformError('discord', { kind: 'surface', reason: 'invalid_request' }, message);
}

export function asDiscordRef(ref: ThreadRef): DiscordThreadRef {
  if (ref.platform !== 'discord') throw badTarget(`the Discord adapter cannot address a ${ref.platform} conversation`);
  return ref;
}

/** The channel messages of this conversation are posted into: the thread, else the channel (or DM). */
export function channelOf(ref: ThreadRef): string {
  const t = asDiscordRef(ref);
  return t.thread ?? t.channel;
}

/** Where a message of this conversation lives: a thread's starter message (same id) is in the parent. */
export function channelOfMessage(ref: ThreadRef, messageId: string): string {
  const t = asDiscordRef(ref);
  return t.thread !== null && t.thread === messageId ? t.channel : channelOf(t);
}

/** Routes match the guild and the (parent) channel; the guild is the group its policy is about. */
export function discordPlace(ref: ThreadRef): ThreadPlace {
  const t = ref.platform === 'discord' ? ref : discordThread(null, '?');
  const direct = t.guild === null;
  return {
    platform: 'discord',
    scope: direct ? { channel: t.channel } : { guild: t.guild!, channel: t.channel },
    channel: t.channel,
    ...(direct ? {} : { group: t.guild! }),
    direct,
    workspaceKey: direct ? `dm-${t.channel}` : `${t.guild}-${t.channel}`,
  };
}
