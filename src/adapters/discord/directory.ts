/**
 * ChannelDirectory: what the adapter knows about channels to map a message (a MESSAGE_CREATE says only
 * `channel_id`): its type, its parent for a thread, who owns a thread (the bot's threads take follow-ups)
 * and each guild's bot role (mentioning it addresses the bot). Fed by GUILD_CREATE, CHANNEL_* / THREAD_*
 * events and the adapter's own thread creations; a channel it has not seen is looked up once over REST
 * (concurrent lookups share one request, so messages keep their order). Bounded: oldest entries go first.
 */
import type { ChannelPayload } from './payloads';

export interface ChannelInfo {
  id: string;
  type: number;
  guildId?: string;
  parentId?: string;
  ownerId?: string;
}

/** Discord channel types (API v10) the adapter tells apart. */
export const ChannelKind = { GuildText: 0, GuildAnnouncement: 5, AnnouncementThread: 10, PublicThread: 11, PrivateThread: 12 } as const;

export const isThread = (type: number): boolean => type === ChannelKind.AnnouncementThread || type === ChannelKind.PublicThread || type === ChannelKind.PrivateThread;
/** Channels a thread can be opened from a message in. */
export const takesThreads = (type: number): boolean => type === ChannelKind.GuildText || type === ChannelKind.GuildAnnouncement;

const MAX_ENTRIES = 20_000;

export class ChannelDirectory {
  private readonly known = new Map<string, ChannelInfo>();
  private readonly lookups = new Map<string, Promise<ChannelInfo | undefined>>();
  private readonly botRoles = new Map<string, Set<string>>();

  constructor(private readonly fetchChannel: (id: string) => Promise<ChannelPayload>) {}

  put(c: ChannelPayload, guildId?: string): ChannelInfo {
    const info: ChannelInfo = { id: c.id, type: c.type };
    const guild = c.guild_id ?? guildId;
    if (guild) info.guildId = guild;
    if (c.parent_id) info.parentId = c.parent_id;
    if (c.owner_id) info.ownerId = c.owner_id;
    this.known.delete(c.id);
    this.known.set(c.id, info);
    if (this.known.size > MAX_ENTRIES) this.known.delete(this.known.keys().next().value!);
    return info;
  }

  remove(id: string): void {
    this.known.delete(id);
  }

  get(id: string): ChannelInfo | undefined {
    return this.known.get(id);
  }

  setBotRoles(guildId: string, roleIds: string[]): void {
    this.botRoles.set(guildId, new Set(roleIds));
  }

  isBotRole(guildId: string | undefined, roleId: string): boolean {
    return guildId !== undefined && (this.botRoles.get(guildId)?.has(roleId) ?? false);
  }

  /** The channel, from memory or one REST lookup; undefined when Discord will not say. */
  resolve(id: string): Promise<ChannelInfo | undefined> {
    const have = this.known.get(id);
    if (have) return Promise.resolve(have);
    let pending = this.lookups.get(id);
    if (!pending) {
      pending = this.fetchChannel(id).then(
        (c) => this.put(c),
        () => undefined,
      );
      pending.finally(() => this.lookups.delete(id)).catch(() => undefined);
      this.lookups.set(id, pending);
    }
    return pending;
  }
}
