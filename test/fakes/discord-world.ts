/**
 * What the REST route handlers of the fake Discord API see of the server (`RestWorld`), plus the
 * access checks they share: unknown channel 10003, no VIEW_CHANNEL 50001, a missing permission 50013,
 * operations on archived threads 50083, and emitting channel/thread events to the gateway.
 */
import { dcErrors } from './discord-errors';
import type { InteractionBook } from './discord-interactions';
import type { MessageService, MessageWorld } from './discord-messages';
import { Perm, has } from './discord-permissions';
import type { StoredChannel } from './discord-store';
import { ChannelType, Intent, type DcUser, type Json } from './discord-types';
import { channelJson } from './discord-wire';
import type { CommandRegistry } from './discord-commands';

export interface RestWorld extends MessageWorld {
  readonly messages: MessageService;
  readonly interactions: InteractionBook;
  readonly commands: CommandRegistry;
  readonly applicationId: string;
  readonly applicationFlags: number;
  readonly applicationName: string;
  readonly gatewayUrl: string;
  readonly botUser: DcUser;
  sessionStartLimit(): Json;
}

export function requireChannel(w: RestWorld, id: string): StoredChannel {
  const ch = w.store.channels.get(id);
  if (!ch) throw dcErrors.unknownChannel();
  return ch;
}

/** The bot's permissions in a channel it can see (50001 when it cannot). */
export function requireView(w: RestWorld, ch: StoredChannel): bigint {
  if (ch.type === ChannelType.DM) return w.store.permissions(w.store.bot.id, ch);
  const bits = w.store.permissions(w.store.bot.id, ch);
  if (!has(bits, Perm.ViewChannel)) throw dcErrors.missingAccess();
  if (ch.thread?.invitable === false || ch.type === ChannelType.PrivateThread) {
    if (!ch.thread?.memberIds.has(w.store.bot.id) && !has(bits, Perm.ManageThreads)) throw dcErrors.missingAccess();
  }
  return bits;
}

export function requirePerm(bits: bigint, p: bigint): void {
  if (!has(bits, p)) throw dcErrors.missingPermissions();
}

export function requireUnarchived(ch: StoredChannel): void {
  if (ch.thread?.archived) throw dcErrors.threadArchived();
}

/** CHANNEL_* / THREAD_* events (GUILDS intent) for a guild channel or thread. */
export function emitChannelEvent(w: RestWorld, t: string, ch: StoredChannel, extra: Json = {}): void {
  w.dispatch({ t, guildId: ch.guildId, intent: Intent.Guilds, build: () => ({ ...channelJson(w.store, ch), ...extra }) });
}
