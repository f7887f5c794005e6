/**
 * What a test "does as a user" on the fake Discord: post a message (guild channel, thread, DM; with
 * attachments, a reply, mentions), run a slash command, click a button. Builds the stored records and
 * the INTERACTION_CREATE payload a bot receives (`data`, `channel`, `member`/`user`, `token`,
 * `app_permissions`, `locale`, `attachment_size_limit`, `entitlements`, `context`…). Test mistakes
 * (unknown message, a button that is not there or is disabled, an unregistered command) throw.
 */
import { randomBytes } from 'node:crypto';
import type { InteractionRecord } from './discord-interactions';
import { Perm } from './discord-permissions';
import type { StoredChannel, StoredMessage } from './discord-store';
import { ChannelType, InteractionType, OptionType, type DcCommand, type DcUser, type Json } from './discord-types';
import { buttonsOf } from './discord-validate';
import { channelJson, memberJson, userJson } from './discord-wire';
import { emitChannelEvent, type RestWorld } from './discord-world';

export interface InjectFile {
  filename: string;
  data: Buffer | string;
  contentType?: string;
}

export interface InjectMessageOptions {
  attachments?: InjectFile[];
  /** Message id (same channel) this message replies to. */
  replyTo?: string;
  /** Whether the reply pings its target (Discord's default: yes). */
  pingReply?: boolean;
  embeds?: Json[];
}

export type OptionValue = string | number | boolean;

export interface SlashOptions {
  subcommand?: string;
  locale?: string;
  /** Send the interaction even if the app never registered the command (Discord would not). */
  allowUnregistered?: boolean;
}

/** A user's message: stored, mention-analysed and dispatched as MESSAGE_CREATE. */
export function userMessage(w: RestWorld, ch: StoredChannel, user: DcUser, content: string, opts: InjectMessageOptions = {}): StoredMessage {
  joinIfNeeded(w, ch, user);
  if (opts.replyTo && !ch.messages.has(opts.replyTo)) throw new Error(`message(): channel ${ch.id} has no message ${opts.replyTo} to reply to`);
  const files = (opts.attachments ?? []).map((f, i) => ({
    field: `files[${i}]`, fileName: f.filename, contentType: f.contentType ?? 'application/octet-stream',
    data: typeof f.data === 'string' ? Buffer.from(f.data) : f.data,
  }));
  if (ch.thread?.archived) {
    if (ch.thread.locked) throw new Error(`message(): thread ${ch.id} is archived and locked`);
    ch.thread.archived = false;
    emitChannelEvent(w, 'THREAD_UPDATE', ch);
  }
  return w.messages.create(
    ch,
    {
      content, embeds: opts.embeds as never, reference: opts.replyTo ? { message_id: opts.replyTo } : undefined,
      allowedMentions: opts.pingReply === false ? { parse: ['users', 'roles', 'everyone'], replied_user: false } : undefined,
    },
    files,
    { userId: user.id },
  );
}

export function joinIfNeeded(w: RestWorld, ch: StoredChannel, user: DcUser): void {
  const guild = w.store.guildOf(ch);
  if (guild) w.store.addMember(guild, user.id);
  if (ch.thread) ch.thread.memberIds.add(user.id);
}

/** Finds the command a user would pick: guild commands first, then global ones usable here. */
export function findCommand(w: RestWorld, ch: StoredChannel, name: string): DcCommand | undefined {
  if (ch.guildId) {
    const g = w.commands.list(ch.guildId).find((c) => c.name === name && c.type === 1);
    if (g) return g;
  }
  return w.commands.list('global').find((c) => {
    if (c.name !== name || c.type !== 1) return false;
    if (ch.guildId) return !c.contexts || c.contexts.includes(0);
    return c.contexts ? c.contexts.includes(1) : c.dm_permission !== false;
  });
}

function baseInteraction(w: RestWorld, ch: StoredChannel, user: DcUser, type: number, locale: string): { payload: Json; rec: InteractionRecord } {
  joinIfNeeded(w, ch, user);
  const id = w.store.ids.next();
  const token = `aW50ZXJhY3Rpb246${id}:${randomBytes(24).toString('base64url')}`;
  const guild = w.store.guildOf(ch);
  const payload: Json = {
    id, application_id: w.applicationId, type, token, version: 1, channel_id: ch.id, locale, entitlements: [],
    app_permissions: w.store.permissions(w.store.bot.id, ch).toString(), attachment_size_limit: w.attachmentSizeLimit,
    authorizing_integration_owners: { '0': guild ? guild.id : '0' }, context: guild ? 0 : 1,
  };
  const channel = channelJson(w.store, ch);
  if (guild) {
    const member = guild.members.get(user.id)!;
    payload.guild_id = guild.id;
    payload.guild = { id: guild.id, locale: guild.preferredLocale, features: [] };
    payload.guild_locale = guild.preferredLocale;
    payload.member = { ...memberJson(w.store, member), permissions: w.store.permissions(user.id, ch).toString() };
    channel.permissions = w.store.permissions(user.id, ch).toString();
  } else {
    payload.user = userJson(user);
    channel.recipients = [userJson(user)];
  }
  payload.channel = channel;
  const rec: InteractionRecord = {
    id, token, type, channelId: ch.id, guildId: guild?.id, userId: user.id, createdAt: w.clock.now(), createdPerf: performance.now(),
    callbacks: [], followupIds: [],
  };
  return { payload, rec };
}

export function slashInteraction(
  w: RestWorld, ch: StoredChannel, user: DcUser, name: string, options: Record<string, OptionValue> = {}, opts: SlashOptions = {},
): { payload: Json; rec: InteractionRecord } {
  const command = findCommand(w, ch, name);
  if (!command && !opts.allowUnregistered) {
    throw new Error(`slashCommand(): /${name} is not registered for channel ${ch.id} (${ch.guildId ? `guild ${ch.guildId} or global` : 'global, DM context'})`);
  }
  const { payload, rec } = baseInteraction(w, ch, user, InteractionType.ApplicationCommand, opts.locale ?? 'en-US');
  let defs = command?.options ?? [];
  if (opts.subcommand) {
    const sub = defs.find((o) => o.name === opts.subcommand && o.type === OptionType.SubCommand);
    if (!sub && command) throw new Error(`slashCommand(): /${name} has no subcommand ${opts.subcommand}`);
    defs = (sub?.options as typeof defs | undefined) ?? [];
  }
  const resolved: Record<string, Record<string, Json>> = {};
  const built = Object.entries(options).map(([key, value]) => {
    const def = defs.find((d) => d.name === key);
    if (!def && command) throw new Error(`slashCommand(): /${name} has no option "${key}"`);
    const type = def?.type ?? (typeof value === 'boolean' ? OptionType.Boolean : typeof value === 'number' ? (Number.isInteger(value) ? OptionType.Integer : OptionType.Number) : OptionType.String);
    let v: OptionValue = value;
    if (type === OptionType.User) {
      const u = w.store.resolveUser(String(value));
      v = u.id;
      (resolved.users ??= {})[u.id] = userJson(u);
      const m = w.store.guildOf(ch)?.members.get(u.id);
      if (m) (resolved.members ??= {})[u.id] = { ...memberJson(w.store, m, false), permissions: w.store.permissions(u.id, ch).toString() };
    } else if (type === OptionType.Channel) {
      const target = w.store.findChannel(String(value), ch.guildId);
      if (!target) throw new Error(`slashCommand(): no channel ${String(value)}`);
      v = target.id;
      (resolved.channels ??= {})[target.id] = { ...channelJson(w.store, target), permissions: w.store.permissions(user.id, target).toString() };
    }
    return { name: key, type, value: v };
  });
  for (const d of defs) {
    if (d.required && !(d.name in options)) throw new Error(`slashCommand(): /${name} needs option "${d.name}"`);
  }
  const data: Json = { id: command?.id ?? w.store.ids.next(), name, type: 1 };
  if (opts.subcommand) data.options = [{ name: opts.subcommand, type: OptionType.SubCommand, ...(built.length ? { options: built } : {}) }];
  else if (built.length) data.options = built;
  if (command?.guild_id) data.guild_id = command.guild_id;
  if (Object.keys(resolved).length) data.resolved = resolved;
  payload.data = data;
  rec.commandName = name;
  rec.commandId = String(data.id);
  return { payload, rec };
}

export function buttonInteraction(
  w: RestWorld, ch: StoredChannel, msg: StoredMessage, customId: string, user: DcUser, locale = 'en-US',
): { payload: Json; rec: InteractionRecord } {
  if (msg.deleted) throw new Error(`clickButton(): message ${msg.id} was deleted`);
  if (msg.ephemeralTo && msg.ephemeralTo !== user.id) throw new Error(`clickButton(): message ${msg.id} is ephemeral for another user`);
  const button = buttonsOf(msg.components).find((b) => b.custom_id === customId);
  if (!button) throw new Error(`clickButton(): message ${msg.id} has no button with custom_id ${JSON.stringify(customId)}`);
  if (button.disabled) throw new Error(`clickButton(): button ${JSON.stringify(customId)} on message ${msg.id} is disabled`);
  const { payload, rec } = baseInteraction(w, ch, user, InteractionType.MessageComponent, locale);
  payload.data = { custom_id: customId, component_type: 2 };
  payload.message = w.messages.render(msg, false, 'rest');
  rec.customId = customId;
  rec.messageId = msg.id;
  return { payload, rec };
}

/** Whether `user` may see `ch` (used to refuse injections a real client could not make). */
export function userCanSee(w: RestWorld, ch: StoredChannel, user: DcUser): boolean {
  if (ch.type === ChannelType.DM) return ch.recipientId === user.id;
  return (w.store.permissions(user.id, ch) & Perm.ViewChannel) !== 0n;
}
