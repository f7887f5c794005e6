/**
 * The fake Discord world: users, guilds (roles, members), channels and threads, DM channels, and
 * every message with its versions, reactions, pings and visibility. Users named in a test are created
 * on first mention and join the guild they speak in. Lookups are Map accesses; a message id index
 * finds any message's channel without scanning.
 */
import { SnowflakeFactory } from './discord-clock';
import { DEFAULT_EVERYONE_PERMISSIONS, Perm, channelPermissions, permBits, type PermissionName } from './discord-permissions';
import {
  ChannelType, type DcAllowedMentions, type DcAttachment, type DcComponent, type DcEmbed, type DcOverwrite, type DcRole,
  type DcUser, type FakeClock,
} from './discord-types';

export type UserRef = string | { id?: string; username: string; globalName?: string; bot?: boolean };

export interface StoredMember {
  userId: string;
  nick: string | null;
  roleIds: string[];
  joinedAt: string;
}

export interface StoredGuild {
  id: string;
  name: string;
  ownerId: string;
  roles: Map<string, DcRole>;
  members: Map<string, StoredMember>;
  channelIds: string[];
  botRoleId: string;
  preferredLocale: string;
  joinedAt: string;
}

export interface ThreadMeta {
  ownerId: string;
  archived: boolean;
  locked: boolean;
  autoArchiveDuration: number;
  archiveTimestamp: string;
  createTimestamp: string;
  invitable?: boolean;
  messageCount: number;
  memberIds: Set<string>;
}

export interface TypingRecord {
  userId: string;
  at: number;
  perfAt: number;
}

export interface StoredChannel {
  id: string;
  type: number;
  guildId?: string;
  name: string;
  parentId?: string;
  position: number;
  topic: string | null;
  nsfw: boolean;
  overwrites: DcOverwrite[];
  rateLimitPerUser: number;
  defaultAutoArchiveDuration?: number;
  /** DM channels: the other user. */
  recipientId?: string;
  thread?: ThreadMeta;
  messages: Map<string, StoredMessage>;
  lastMessageId: string | null;
  typing: TypingRecord[];
}

export type StoredAttachment = DcAttachment & { data: Buffer };

export interface PingReport {
  everyone: boolean;
  here: boolean;
  users: string[];
  roles: string[];
  repliedUser?: string;
  /** True when anyone would get a notification. */
  any: boolean;
}

export interface MessageVersion {
  at: number;
  content: string;
  embeds: DcEmbed[];
  components: DcComponent[];
  flags: number;
}

export interface ReactionRecord {
  key: string;
  emoji: { id: string | null; name: string };
  userIds: string[];
}

export interface StoredMessage {
  id: string;
  channelId: string;
  guildId?: string;
  authorId: string;
  type: number;
  content: string;
  embeds: DcEmbed[];
  components: DcComponent[];
  attachments: StoredAttachment[];
  flags: number;
  tts: boolean;
  createdAt: number;
  editedAt: number | null;
  deleted: boolean;
  deletedAt?: number;
  mentions: { users: string[]; roles: string[]; everyone: boolean };
  pings: PingReport;
  allowedMentions?: DcAllowedMentions;
  reference?: { message_id: string; channel_id: string; guild_id?: string };
  nonce?: string | number;
  webhookId?: string;
  applicationId?: string;
  interaction?: { id: string; type: number; name: string; userId: string };
  /** Ephemeral replies: the one user who sees the message. */
  ephemeralTo?: string;
  /** Earlier versions, oldest first (the current one is the message itself). */
  history: MessageVersion[];
  reactions: ReactionRecord[];
  threadId?: string;
  /** Edits answered while the message was over an hour old (30046 budget). */
  oldEdits: number[];
}

export interface ChannelSeed {
  id?: string;
  name: string;
  type?: 'text' | 'announcement' | 'forum' | 'voice' | 'category';
  topic?: string;
  parent?: string;
  overwrites?: DcOverwrite[];
  defaultAutoArchiveDuration?: number;
}

export interface GuildSeed {
  id?: string;
  name?: string;
  channels?: Array<string | ChannelSeed>;
  members?: UserRef[];
  /** Permissions of the bot's managed role (on top of @everyone). Default none. */
  botPermissions?: PermissionName[] | bigint;
  everyonePermissions?: PermissionName[] | bigint;
  preferredLocale?: string;
}

const CHANNEL_KIND = { text: 0, announcement: 5, forum: 15, voice: 2, category: 4 } as const;
const DM_PERMISSIONS =
  Perm.ViewChannel | Perm.SendMessages | Perm.EmbedLinks | Perm.AttachFiles | Perm.ReadMessageHistory | Perm.AddReactions |
  Perm.MentionEveryone | Perm.UseExternalEmojis | Perm.UseApplicationCommands;

export class DiscordStore {
  readonly ids: SnowflakeFactory;
  readonly users = new Map<string, { user: DcUser; dmsClosed: boolean }>();
  readonly guilds = new Map<string, StoredGuild>();
  readonly channels = new Map<string, StoredChannel>();
  readonly dmByUser = new Map<string, string>();
  readonly messageChannel = new Map<string, string>();
  private readonly byUsername = new Map<string, string>();
  readonly bot: DcUser;

  constructor(readonly clock: FakeClock, bot: { id?: string; username: string }) {
    this.ids = new SnowflakeFactory(clock);
    this.bot = this.addUser({ id: bot.id, username: bot.username, bot: true });
  }

  iso(ms = this.clock.now()): string {
    return new Date(ms).toISOString();
  }

  addUser(input: { id?: string; username: string; globalName?: string; bot?: boolean }): DcUser {
    const id = input.id ?? this.ids.next();
    const user: DcUser = {
      id, username: input.username, discriminator: '0', global_name: input.globalName ?? (input.bot ? null : input.username),
      avatar: null, public_flags: 0,
    };
    if (input.bot) user.bot = true;
    this.users.set(id, { user, dmsClosed: false });
    this.byUsername.set(input.username, id);
    return user;
  }

  /** A user by id or username, created when a username is new. */
  resolveUser(ref: UserRef): DcUser {
    if (typeof ref === 'string') {
      const byId = this.users.get(ref);
      if (byId) return byId.user;
      const named = this.byUsername.get(ref);
      if (named) return this.users.get(named)!.user;
      if (/^\d{17,20}$/.test(ref)) throw new Error(`FakeDiscordServer: no user with id ${ref}`);
      return this.addUser({ username: ref });
    }
    const known = (ref.id && this.users.get(ref.id)) || (this.byUsername.has(ref.username) && this.users.get(this.byUsername.get(ref.username)!));
    return known ? known.user : this.addUser(ref);
  }

  addGuild(seed: GuildSeed = {}): StoredGuild {
    const id = seed.id ?? this.ids.next();
    const members = (seed.members ?? []).map((m) => this.resolveUser(m));
    const owner = members[0] ?? this.resolveUser('guild-owner');
    const everyone: DcRole = role(id, '@everyone', 0, seed.everyonePermissions !== undefined ? permBits(seed.everyonePermissions) : DEFAULT_EVERYONE_PERMISSIONS);
    const botRole: DcRole = { ...role(this.ids.next(), this.bot.username, 1, permBits(seed.botPermissions)), managed: true, tags: { bot_id: this.bot.id } };
    const guild: StoredGuild = {
      id, name: seed.name ?? 'Fake Guild', ownerId: owner.id, roles: new Map([[id, everyone], [botRole.id, botRole]]),
      members: new Map(), channelIds: [], botRoleId: botRole.id, preferredLocale: seed.preferredLocale ?? 'en-US', joinedAt: this.iso(),
    };
    this.guilds.set(id, guild);
    this.addMember(guild, this.bot.id, [botRole.id]);
    this.addMember(guild, owner.id);
    for (const m of members) this.addMember(guild, m.id);
    for (const c of seed.channels ?? ['general']) this.addChannel(guild, typeof c === 'string' ? { name: c } : c);
    return guild;
  }

  addMember(guild: StoredGuild, userId: string, roleIds: string[] = []): StoredMember {
    const existing = guild.members.get(userId);
    if (existing) return existing;
    const member: StoredMember = { userId, nick: null, roleIds, joinedAt: this.iso() };
    guild.members.set(userId, member);
    return member;
  }

  addRole(guild: StoredGuild, input: { name: string; permissions?: PermissionName[] | bigint; mentionable?: boolean }): DcRole {
    const r = { ...role(this.ids.next(), input.name, guild.roles.size, permBits(input.permissions)), mentionable: input.mentionable ?? false };
    guild.roles.set(r.id, r);
    return r;
  }

  addChannel(guild: StoredGuild, seed: ChannelSeed): StoredChannel {
    const parent = seed.parent ? this.findChannel(seed.parent, guild.id) : undefined;
    const ch = this.newChannel({
      id: seed.id ?? this.ids.next(), type: CHANNEL_KIND[seed.type ?? 'text'], guildId: guild.id, name: seed.name,
      parentId: parent?.id, position: guild.channelIds.length, topic: seed.topic ?? null, overwrites: seed.overwrites ?? [],
      defaultAutoArchiveDuration: seed.defaultAutoArchiveDuration,
    });
    guild.channelIds.push(ch.id);
    return ch;
  }

  addThread(parent: StoredChannel, input: { id?: string; name: string; type?: number; ownerId: string; autoArchiveDuration?: number; invitable?: boolean }): StoredChannel {
    const now = this.iso();
    const ch = this.newChannel({
      id: input.id ?? this.ids.next(), type: input.type ?? ChannelType.PublicThread, guildId: parent.guildId, name: input.name,
      parentId: parent.id, position: 0, topic: null, overwrites: [],
    });
    ch.thread = {
      ownerId: input.ownerId, archived: false, locked: false, autoArchiveDuration: input.autoArchiveDuration ?? parent.defaultAutoArchiveDuration ?? 1440,
      archiveTimestamp: now, createTimestamp: now, messageCount: 0, memberIds: new Set([input.ownerId]),
    };
    if (input.invitable !== undefined) ch.thread.invitable = input.invitable;
    return ch;
  }

  /** The bot's DM channel with a user, opened on first use. */
  dmChannel(userId: string): StoredChannel {
    const existing = this.dmByUser.get(userId);
    if (existing) return this.channels.get(existing)!;
    const ch = this.newChannel({ id: this.ids.next(), type: ChannelType.DM, name: '', position: 0, topic: null, overwrites: [], recipientId: userId });
    this.dmByUser.set(userId, ch.id);
    return ch;
  }

  private newChannel(f: Partial<StoredChannel> & Pick<StoredChannel, 'id' | 'type' | 'name' | 'position' | 'topic' | 'overwrites'>): StoredChannel {
    const ch: StoredChannel = { nsfw: false, rateLimitPerUser: 0, messages: new Map(), lastMessageId: null, typing: [], ...f };
    this.channels.set(ch.id, ch);
    return ch;
  }

  /** A channel by id, or by name (in one guild, or in any guild when none is given). */
  findChannel(ref: string, guildId?: string): StoredChannel | undefined {
    const byId = this.channels.get(ref);
    if (byId) return byId;
    for (const ch of this.channels.values()) if (ch.name === ref && ch.type !== ChannelType.DM && (!guildId || ch.guildId === guildId)) return ch;
    return undefined;
  }

  /** The channel whose overwrites and guild rules apply (a thread's parent). */
  permissionChannel(ch: StoredChannel): StoredChannel {
    return ch.thread && ch.parentId ? (this.channels.get(ch.parentId) ?? ch) : ch;
  }

  permissions(userId: string, ch: StoredChannel): bigint {
    if (ch.type === ChannelType.DM) return DM_PERMISSIONS;
    const guild = ch.guildId ? this.guilds.get(ch.guildId) : undefined;
    const member = guild?.members.get(userId);
    if (!guild || !member) return 0n;
    const base = this.permissionChannel(ch);
    return channelPermissions({
      guildId: guild.id, ownerId: guild.ownerId, userId, roles: guild.roles, memberRoleIds: member.roleIds, overwrites: base.overwrites,
    });
  }

  addMessage(ch: StoredChannel, f: Partial<StoredMessage> & Pick<StoredMessage, 'authorId'>): StoredMessage {
    const id = f.id ?? this.ids.next();
    const msg: StoredMessage = {
      id, channelId: ch.id, guildId: ch.guildId, type: 0, content: '', embeds: [], components: [], attachments: [], flags: 0, tts: false,
      createdAt: this.clock.now(), editedAt: null, deleted: false, mentions: { users: [], roles: [], everyone: false },
      pings: { everyone: false, here: false, users: [], roles: [], any: false }, history: [], reactions: [], oldEdits: [], ...f,
    };
    ch.messages.set(id, msg);
    this.messageChannel.set(id, ch.id);
    if (!msg.ephemeralTo) ch.lastMessageId = id;
    if (ch.thread) ch.thread.messageCount++;
    return msg;
  }

  findMessage(messageId: string): { channel: StoredChannel; message: StoredMessage } | undefined {
    const cid = this.messageChannel.get(messageId);
    const channel = cid ? this.channels.get(cid) : undefined;
    const message = channel?.messages.get(messageId);
    return channel && message ? { channel, message } : undefined;
  }

  guildOf(ch: StoredChannel): StoredGuild | undefined {
    return ch.guildId ? this.guilds.get(ch.guildId) : undefined;
  }
}

function role(id: string, name: string, position: number, permissions: bigint): DcRole {
  return {
    id, name, color: 0, hoist: false, icon: null, unicode_emoji: null, position, permissions: permissions.toString(), managed: false,
    mentionable: false, flags: 0,
  };
}
