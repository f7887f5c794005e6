/**
 * Renders the fake's stored world as Discord API v10 JSON: users, members, roles, channels, threads,
 * DM channels, guilds (REST and the full GUILD_CREATE form) and messages (REST form, or the gateway
 * form with `guild_id`, `member` and `channel_type`). Field names and nullability follow the API so
 * discord.js builds its structures from them unchanged.
 */
import type { DiscordStore, StoredChannel, StoredGuild, StoredMember, StoredMessage } from './discord-store';
import { ChannelType, Intent, type DcUser, type Json } from './discord-types';

export const discordTimestamp = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');

export function userJson(u: DcUser): Json {
  return { ...u };
}

export function memberJson(store: DiscordStore, m: StoredMember, withUser = true): Json {
  const out: Json = {
    nick: m.nick, avatar: null, banner: null, roles: [...m.roleIds], joined_at: m.joinedAt, premium_since: null, deaf: false, mute: false,
    flags: 0, pending: false, communication_disabled_until: null,
  };
  if (withUser) out.user = userJson(store.resolveUser(m.userId));
  return out;
}

export function channelJson(store: DiscordStore, ch: StoredChannel, opts: { omitGuildId?: boolean } = {}): Json {
  if (ch.type === ChannelType.DM) {
    return { id: ch.id, type: ch.type, last_message_id: ch.lastMessageId, flags: 0, recipients: [userJson(store.resolveUser(ch.recipientId!))] };
  }
  const base: Json = { id: ch.id, type: ch.type, name: ch.name, flags: 0, last_message_id: ch.lastMessageId, rate_limit_per_user: ch.rateLimitPerUser };
  if (!opts.omitGuildId) base.guild_id = ch.guildId;
  if (ch.thread) {
    const t = ch.thread;
    Object.assign(base, {
      parent_id: ch.parentId, owner_id: t.ownerId, message_count: t.messageCount, total_message_sent: t.messageCount,
      member_count: t.memberIds.size,
      thread_metadata: {
        archived: t.archived, auto_archive_duration: t.autoArchiveDuration, archive_timestamp: t.archiveTimestamp, locked: t.locked,
        create_timestamp: t.createTimestamp, ...(t.invitable !== undefined ? { invitable: t.invitable } : {}),
      },
    });
    if (t.memberIds.has(store.bot.id)) {
      base.member = { id: ch.id, user_id: store.bot.id, join_timestamp: t.createTimestamp, flags: 1 };
    }
    return base;
  }
  Object.assign(base, {
    position: ch.position, permission_overwrites: ch.overwrites.map((o) => ({ ...o })), parent_id: ch.parentId ?? null, topic: ch.topic,
    nsfw: ch.nsfw,
  });
  if (ch.defaultAutoArchiveDuration) base.default_auto_archive_duration = ch.defaultAutoArchiveDuration;
  return base;
}

export function guildJson(guild: StoredGuild): Json {
  return {
    id: guild.id, name: guild.name, icon: null, icon_hash: null, splash: null, discovery_splash: null, owner_id: guild.ownerId,
    afk_channel_id: null, afk_timeout: 300, widget_enabled: false, verification_level: 0, default_message_notifications: 1,
    explicit_content_filter: 0, roles: [...guild.roles.values()].map((r) => ({ ...r })), emojis: [], features: [], mfa_level: 0,
    application_id: null, system_channel_id: guild.channelIds[0] ?? null, system_channel_flags: 0, rules_channel_id: null,
    max_members: 500000, vanity_url_code: null, description: null, banner: null, premium_tier: 0, premium_subscription_count: 0,
    preferred_locale: guild.preferredLocale, public_updates_channel_id: null, nsfw_level: 0, stickers: [], premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
  };
}

/** GUILD_CREATE data: the guild plus channels, active threads and the members the intents allow. */
export function guildCreateJson(store: DiscordStore, guild: StoredGuild, intents: number): Json {
  const channels: Json[] = [];
  const threads: Json[] = [];
  for (const ch of store.channels.values()) {
    if (ch.guildId !== guild.id) continue;
    if (ch.thread) {
      if (!ch.thread.archived) threads.push(channelJson(store, ch));
    } else {
      channels.push(channelJson(store, ch, { omitGuildId: true }));
    }
  }
  const members = [...guild.members.values()]
    .filter((m) => m.userId === store.bot.id || (intents & Intent.GuildMembers) !== 0)
    .map((m) => memberJson(store, m));
  return {
    ...guildJson(guild), joined_at: guild.joinedAt, large: false, unavailable: false, member_count: guild.members.size, voice_states: [],
    members, channels, threads, presences: [], stage_instances: [], guild_scheduled_events: [], soundboard_sounds: [],
    embedded_activities: [], activity_instances: [], lazy: true,
  };
}

export interface MessageRenderOptions {
  /** The gateway form: adds guild_id, channel_type and the author's member. */
  gateway?: boolean;
  /** Blank the fields MESSAGE_CONTENT guards. */
  withholdContent?: boolean;
  cdnRoot: string;
}

export function messageJson(store: DiscordStore, msg: StoredMessage, opts: MessageRenderOptions): Json {
  const ch = store.channels.get(msg.channelId)!;
  const guild = store.guildOf(ch);
  const author = store.resolveUser(msg.authorId);
  const mentionUser = (id: string): Json => {
    const u = userJson(store.resolveUser(id));
    const m = guild?.members.get(id);
    if (opts.gateway && guild && m) u.member = memberJson(store, m, false);
    return u;
  };
  const out: Json = {
    id: msg.id, channel_id: msg.channelId, author: userJson(author), content: msg.content, timestamp: discordTimestamp(msg.createdAt),
    edited_timestamp: msg.editedAt === null ? null : discordTimestamp(msg.editedAt), tts: msg.tts, mention_everyone: msg.mentions.everyone,
    mentions: msg.mentions.users.map(mentionUser), mention_roles: [...msg.mentions.roles],
    attachments: msg.attachments.map(({ data: _data, ...a }) => ({ ...a, url: `${opts.cdnRoot}${a.url}`, proxy_url: `${opts.cdnRoot}${a.proxy_url}` })),
    embeds: msg.embeds.map((e) => ({ type: 'rich', ...e })), pinned: false, type: msg.type, flags: msg.flags,
    components: structuredClone(msg.components),
  };
  if (msg.nonce !== undefined) out.nonce = msg.nonce;
  if (msg.webhookId) out.webhook_id = msg.webhookId;
  if (msg.applicationId) out.application_id = msg.applicationId;
  if (msg.reference) {
    out.message_reference = { type: 0, ...msg.reference };
    const ref = store.findMessage(msg.reference.message_id);
    out.referenced_message = ref && !ref.message.deleted ? messageJson(store, ref.message, { ...opts, gateway: false }) : null;
  }
  if (msg.interaction) {
    const user = userJson(store.resolveUser(msg.interaction.userId));
    out.interaction_metadata = {
      id: msg.interaction.id, type: msg.interaction.type, user, authorizing_integration_owners: guild ? { '0': guild.id } : { '0': '0' },
      ...(msg.interaction.type === 2 ? { name: msg.interaction.name, command_type: 1 } : {}),
    };
    out.interaction = { id: msg.interaction.id, type: msg.interaction.type, name: msg.interaction.name, user };
  }
  if (msg.threadId) {
    const thread = store.channels.get(msg.threadId);
    if (thread) out.thread = channelJson(store, thread);
  }
  if (msg.reactions.length) {
    out.reactions = msg.reactions.map((r) => ({
      count: r.userIds.length, count_details: { burst: 0, normal: r.userIds.length }, me: r.userIds.includes(store.bot.id), me_burst: false,
      emoji: { ...r.emoji }, burst_colors: [],
    }));
  }
  if (opts.gateway) {
    if (guild) {
      out.guild_id = guild.id;
      const m = guild.members.get(msg.authorId);
      if (m && !msg.webhookId) out.member = memberJson(store, m, false);
    }
    out.channel_type = ch.type;
  }
  if (opts.withholdContent) {
    out.content = '';
    out.embeds = [];
    out.attachments = [];
    out.components = [];
  }
  return out;
}
