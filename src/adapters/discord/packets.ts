/**
 * Raw gateway dispatches → the adapter: channel and thread events keep the ChannelDirectory current
 * (GUILD_CREATE also names the bot's managed role), MESSAGE_CREATE and INTERACTION_CREATE are validated
 * and handed on. The adapter reads raw dispatches (not discord.js's cached structures) so every payload
 * passes its zod schema and a DM needs no cached channel. Unreadable payloads are logged and skipped.
 */
import type { Logger } from 'pino';
import type * as z from 'zod';
import type { ChannelDirectory } from './directory';
import {
  channelSchema, deletedSchema, guildCreateSchema, interactionSchema, messageSchema, parseOr, threadListSyncSchema,
  type InteractionPayload, type MessagePayload,
} from './payloads';

export interface PacketSinks {
  directory: ChannelDirectory;
  botId: () => string;
  onMessage(m: MessagePayload): void;
  onInteraction(i: InteractionPayload): void;
  logger: Logger;
}

const CHANNEL_UPSERTS = new Set(['CHANNEL_CREATE', 'CHANNEL_UPDATE', 'THREAD_CREATE', 'THREAD_UPDATE']);
const CHANNEL_DELETES = new Set(['CHANNEL_DELETE', 'THREAD_DELETE']);

export function routePacket(t: string | null | undefined, d: unknown, s: PacketSinks): void {
  if (!t) return;
  const read = <T>(schema: z.ZodType<T>): T | undefined => {
    const r = parseOr(schema, d);
    if (r.ok) return r.value;
    s.logger.warn({ event: t, err: r.error }, 'discord: unreadable gateway event skipped');
    return undefined;
  };
  if (t === 'MESSAGE_CREATE') {
    const m = read(messageSchema);
    if (m) s.onMessage(m);
  } else if (t === 'INTERACTION_CREATE') {
    const i = read(interactionSchema);
    if (i) s.onInteraction(i);
  } else if (t === 'GUILD_CREATE') {
    const g = read(guildCreateSchema);
    if (!g) return;
    for (const c of [...g.channels, ...g.threads]) s.directory.put(c, g.id);
    s.directory.setBotRoles(g.id, g.roles.filter((r) => r.tags?.bot_id === s.botId()).map((r) => r.id));
  } else if (CHANNEL_UPSERTS.has(t)) {
    const c = read(channelSchema);
    if (c) s.directory.put(c);
  } else if (CHANNEL_DELETES.has(t)) {
    const c = read(deletedSchema);
    if (c) s.directory.remove(c.id);
  } else if (t === 'THREAD_LIST_SYNC') {
    const l = read(threadListSyncSchema);
    for (const c of l?.threads ?? []) s.directory.put(c, l!.guild_id);
  }
}
