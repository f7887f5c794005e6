/**
 * FakeDiscordServer: a Discord REST API + gateway stand-in on 127.0.0.1 that the real discord.js 14
 * client connects to (`rest: { api: server.apiRoot }`). The test side shapes the world (guilds,
 * channels, users, permissions), acts as users (messages, mentions, DMs, threads, slash commands,
 * button clicks), reads what users see (channels, ephemerals, pings, typing), inspects REST calls and
 * gateway frames, forces faults and drives the gateway (reconnect, invalid session, close, zombie).
 * Events: 'call' (CallRecord), 'dispatch' (DispatchRecord), 'change' (anything).
 */
import type { CallRecord } from './discord-call-log';
import { buttonInteraction, slashInteraction, userCanSee, userMessage, type InjectMessageOptions, type OptionValue, type SlashOptions } from './discord-inject';
import { permBits, type PermissionName } from './discord-permissions';
import type { FakeDiscordOptions } from './discord-server-core';
import { DiscordServerControls } from './discord-server-controls';
import type { ChannelSeed, GuildSeed, StoredChannel, StoredGuild, UserRef } from './discord-store';
import { ChannelType, Intent, type DcCommand, type DcRole, type DcUser, type Json } from './discord-types';
import { channelView, interactionView, messageView, type ChannelView, type InteractionView, type MessageView } from './discord-views';
import { channelJson, guildCreateJson } from './discord-wire';
import { emitChannelEvent } from './discord-world';

export type { FakeDiscordOptions, CallRecord, MessageView, ChannelView, InteractionView };
export { ManualClock } from './discord-clock';

export interface GuildHandle {
  id: string;
  name: string;
  /** Channel ids by name. */
  channels: Record<string, string>;
  everyoneRoleId: string;
  botRoleId: string;
}

export interface InjectedMessage {
  id: string;
  channelId: string;
  guildId?: string;
  authorId: string;
  /** Gateway sessions the MESSAGE_CREATE went to (0 = the bot was not listening or lacks the intent). */
  delivered: number;
  /** performance.now() when the event was handed to the gateway. */
  sentAt: number;
  view(): MessageView;
}

export interface InteractionHandle {
  id: string;
  token: string;
  channelId: string;
  guildId?: string;
  userId: string;
  delivered: number;
  sentAt: number;
  view(): InteractionView;
  /** Resolves once a callback acknowledged the interaction. */
  waitForAck(timeoutMs?: number): Promise<InteractionView>;
  /** Resolves with the response message once it is filled in (not "thinking…") and `match` accepts it. */
  waitForResponse(match?: (m: MessageView) => boolean, timeoutMs?: number): Promise<MessageView>;
}

export class FakeDiscordServer extends DiscordServerControls {
  constructor(options: FakeDiscordOptions = {}) {
    super(options);
  }

  /** Options to spread into `new Client({ ... })` so every REST call and asset URL goes to the fake. */
  clientOptions(): { rest: { api: string; cdn: string; mediaProxy: string } } {
    return { rest: { api: this.apiRoot, cdn: this.cdnRoot, mediaProxy: this.cdnRoot } };
  }

  // ---- world ------------------------------------------------------------------------------------

  guild(ref?: string): GuildHandle {
    const g = ref === undefined ? this.store.guilds.values().next().value : (this.store.guilds.get(ref) ?? [...this.store.guilds.values()].find((x) => x.name === ref));
    if (!g) throw new Error(`FakeDiscordServer: no guild ${ref ?? '(none configured)'}`);
    return this.handleOf(g);
  }

  get defaultGuild(): GuildHandle {
    return this.guild();
  }

  /** Adds a guild the bot is in; a connected bot gets GUILD_CREATE. */
  addGuild(seed: GuildSeed = {}): GuildHandle {
    const g = this.store.addGuild(seed);
    this.dispatch({ t: 'GUILD_CREATE', guildId: g.id, intent: Intent.Guilds, build: (s) => guildCreateJson(this.store, g, s.intents) });
    this.changed();
    return this.handleOf(g);
  }

  addChannel(guildRef: string, seed: ChannelSeed): string {
    const ch = this.store.addChannel(this.storedGuild(guildRef), seed);
    emitChannelEvent(this, 'CHANNEL_CREATE', ch);
    this.changed();
    return ch.id;
  }

  addUser(input: { username: string; globalName?: string; bot?: boolean; id?: string }): DcUser {
    return { ...this.store.addUser(input) };
  }

  user(ref: UserRef): DcUser {
    return { ...this.store.resolveUser(ref) };
  }

  addRole(guildRef: string, input: { name: string; permissions?: PermissionName[] | bigint; mentionable?: boolean }, members: UserRef[] = []): DcRole {
    const g = this.storedGuild(guildRef);
    const role = this.store.addRole(g, input);
    for (const m of members) this.store.addMember(g, this.store.resolveUser(m).id).roleIds.push(role.id);
    this.changed();
    return { ...role };
  }

  /** A channel id from an id or a name (threads included; any guild). */
  channelId(ref: string): string {
    return this.channel(ref).id;
  }

  /** Sets a member (user) or role overwrite on a channel; a connected bot gets CHANNEL_UPDATE. */
  setPermissions(channelRef: string, target: { user?: UserRef; roleId?: string }, perms: { allow?: PermissionName[]; deny?: PermissionName[] }): void {
    const ch = this.store.permissionChannel(this.channel(channelRef));
    const id = target.roleId ?? this.store.resolveUser(target.user ?? this.store.bot.id).id;
    const type = target.roleId ? 0 : 1;
    ch.overwrites = ch.overwrites.filter((o) => !(o.id === id && o.type === type));
    ch.overwrites.push({ id, type, allow: permBits(perms.allow ?? []).toString(), deny: permBits(perms.deny ?? []).toString() });
    emitChannelEvent(this, 'CHANNEL_UPDATE', ch);
    this.changed();
  }

  /** Overwrites the bot's own permissions in a channel (e.g. deny SendMessages → 50013). */
  setBotPermissions(channelRef: string, perms: { allow?: PermissionName[]; deny?: PermissionName[] }): void {
    this.setPermissions(channelRef, { user: this.store.bot.id }, perms);
  }

  /** From now on the bot's DMs to this user fail with 50007. */
  setDmsClosed(user: UserRef, closed = true): void {
    this.store.users.get(this.store.resolveUser(user).id)!.dmsClosed = closed;
  }

  archiveThread(threadRef: string, opts: { locked?: boolean; archived?: boolean } = {}): void {
    const ch = this.channel(threadRef);
    if (!ch.thread) throw new Error(`archiveThread(): ${threadRef} is not a thread`);
    ch.thread.archived = opts.archived ?? true;
    if (opts.locked !== undefined) ch.thread.locked = opts.locked;
    ch.thread.archiveTimestamp = this.store.iso();
    emitChannelEvent(this, 'THREAD_UPDATE', ch);
    this.changed();
  }

  // ---- acting as users -------------------------------------------------------------------------

  message(channelRef: string, user: UserRef, text: string, opts: InjectMessageOptions = {}): InjectedMessage {
    const ch = this.channel(channelRef);
    const u = this.store.resolveUser(user);
    if (ch.guildId && !this.store.guildOf(ch)!.members.has(u.id)) this.store.addMember(this.store.guildOf(ch)!, u.id);
    if (!userCanSee(this, ch, u)) throw new Error(`message(): ${u.username} cannot see channel ${ch.name || ch.id}`);
    return this.injected(userMessage(this, ch, u, text, opts).id);
  }

  /** A message that starts by mentioning the bot (`<@bot> text`), so it reaches it without MESSAGE_CONTENT. */
  mention(channelRef: string, user: UserRef, text: string, opts: InjectMessageOptions = {}): InjectedMessage {
    return this.message(channelRef, user, `<@${this.store.bot.id}> ${text}`, opts);
  }

  /** A DM from the user to the bot (the DM channel is opened on first use). */
  dm(user: UserRef, text: string, opts: InjectMessageOptions = {}): InjectedMessage {
    const u = this.store.resolveUser(user);
    return this.injected(userMessage(this, this.store.dmChannel(u.id), u, text, opts).id);
  }

  /** The DM channel id between the bot and a user (opened if needed). */
  dmChannelId(user: UserRef): string {
    return this.store.dmChannel(this.store.resolveUser(user).id).id;
  }

  /** A user starts a thread (from one of the channel's messages, or standalone); the bot gets THREAD_CREATE. */
  startThread(channelRef: string, user: UserRef, name: string, opts: { fromMessage?: string } = {}): string {
    const parent = this.channel(channelRef);
    const u = this.store.resolveUser(user);
    const starter = opts.fromMessage ? parent.messages.get(opts.fromMessage) : undefined;
    if (opts.fromMessage && !starter) throw new Error(`startThread(): channel ${parent.id} has no message ${opts.fromMessage}`);
    if (starter?.threadId) throw new Error(`startThread(): message ${starter.id} already has a thread`);
    const thread = this.store.addThread(parent, { id: starter?.id, name, ownerId: u.id });
    if (starter) {
      starter.threadId = thread.id;
      starter.flags |= 1 << 5;
    }
    emitChannelEvent(this, 'THREAD_CREATE', thread, { newly_created: true });
    this.changed();
    return thread.id;
  }

  /** The user edits their own message; the bot gets MESSAGE_UPDATE. */
  editUserMessage(messageId: string, text: string): void {
    const { channel, message } = this.found(messageId);
    this.messages.edit(channel, message, { content: text }, [], false);
  }

  deleteUserMessage(messageId: string): void {
    const { channel, message } = this.found(messageId);
    this.messages.delete(channel, message);
  }

  slashCommand(channelRef: string, user: UserRef, name: string, options: Record<string, OptionValue> = {}, opts: SlashOptions = {}): InteractionHandle {
    const ch = this.channel(channelRef);
    const u = this.store.resolveUser(user);
    return this.interact(slashInteraction(this, ch, u, name, options, opts), ch);
  }

  /** A slash command in the user's DM with the bot. */
  dmSlashCommand(user: UserRef, name: string, options: Record<string, OptionValue> = {}, opts: SlashOptions = {}): InteractionHandle {
    const u = this.store.resolveUser(user);
    const ch = this.store.dmChannel(u.id);
    return this.interact(slashInteraction(this, ch, u, name, options, opts), ch);
  }

  /** The user clicks the button with this custom_id on a message (throws if it is absent or disabled). */
  clickButton(messageId: string, customId: string, user: UserRef, opts: { locale?: string } = {}): InteractionHandle {
    const { channel, message } = this.found(messageId);
    return this.interact(buttonInteraction(this, channel, message, customId, this.store.resolveUser(user), opts.locale), channel);
  }

  /** Sends any dispatch to the bot (e.g. a CHANNEL_CREATE for a DM), routed like a real one. */
  dispatchEvent(t: string, d: Json, opts: { guildId?: string; intent?: number } = {}): number {
    this.dispatch({ t, guildId: opts.guildId, intent: opts.intent, build: () => structuredClone(d) });
    this.changed();
    return this.lastDispatch?.delivered ?? 0;
  }

  /** Announces a DM channel with CHANNEL_CREATE (Discord itself does not send this to bots). */
  announceDmChannel(user: UserRef): string {
    const ch = this.store.dmChannel(this.store.resolveUser(user).id);
    this.dispatchEvent('CHANNEL_CREATE', channelJson(this.store, ch));
    return ch.id;
  }

  // ---- what users see -----------------------------------------------------------------------------

  /** The channel (or thread, or DM) as `as` sees it: visible messages in order, their own ephemerals. */
  channelView(channelRef: string, opts: { as?: UserRef } = {}): ChannelView {
    const viewer = opts.as === undefined ? undefined : this.store.resolveUser(opts.as).id;
    return channelView(this.store, this.channel(channelRef), this.clock.now(), viewer);
  }

  /** Final content of each visible message, in order (buttons elided). */
  transcript(channelRef: string, opts: { as?: UserRef } = {}): string[] {
    return this.channelView(channelRef, opts).messages.map((m) => `${m.author}: ${m.content}`);
  }

  messageView(messageId: string): MessageView {
    return messageView(this.store, this.found(messageId).message);
  }

  /** Every message ever posted in a channel, deleted and ephemeral ones included. */
  allMessages(channelRef: string): MessageView[] {
    return [...this.channel(channelRef).messages.values()].map((m) => messageView(this.store, m));
  }

  botMessages(channelRef: string): MessageView[] {
    return this.channelView(channelRef).messages.filter((m) => m.fromBot);
  }

  /** Ephemeral replies a user received, anywhere, oldest first. */
  ephemeralReplies(user: UserRef): MessageView[] {
    const id = this.store.resolveUser(user).id;
    const out: MessageView[] = [];
    for (const ch of this.store.channels.values()) for (const m of ch.messages.values()) if (m.ephemeralTo === id && !m.deleted) out.push(messageView(this.store, m));
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Bot messages (any channel) that would notify someone. */
  pingingMessages(): MessageView[] {
    const out: MessageView[] = [];
    for (const ch of this.store.channels.values()) for (const m of ch.messages.values()) if (m.authorId === this.store.bot.id && m.pings.any) out.push(messageView(this.store, m));
    return out;
  }

  interaction(id: string): InteractionView {
    const rec = this.interactions.get(id);
    if (!rec) throw new Error(`FakeDiscordServer: no interaction ${id}`);
    return interactionView(this.store, this.interactions, rec, this.clock.now());
  }

  allInteractions(): InteractionView[] {
    return this.interactions.all().map((r) => interactionView(this.store, this.interactions, r, this.clock.now()));
  }

  /** Registered commands: global ones, or one guild's. */
  registeredCommands(guildRef?: string): DcCommand[] {
    return this.commands.list(guildRef === undefined ? 'global' : this.storedGuild(guildRef).id);
  }

  /** New commands created (creates that spent the daily budget): per scope, or in total. */
  commandCreates(scope?: 'global' | string): number {
    return this.commands.creates(scope === undefined || scope === 'global' ? scope : this.storedGuild(scope).id);
  }

  // ---- internals ------------------------------------------------------------------------------------------

  private handleOf(g: StoredGuild): GuildHandle {
    const channels: Record<string, string> = {};
    for (const id of g.channelIds) channels[this.store.channels.get(id)!.name] = id;
    return { id: g.id, name: g.name, channels, everyoneRoleId: g.id, botRoleId: g.botRoleId };
  }

  private storedGuild(ref: string): StoredGuild {
    return this.store.guilds.get(this.guild(ref).id)!;
  }

  private channel(ref: string): StoredChannel {
    const first = this.store.guilds.keys().next().value;
    const ch = this.store.channels.get(ref) ?? (first ? this.store.findChannel(ref, first) : undefined) ?? this.store.findChannel(ref);
    if (!ch) throw new Error(`FakeDiscordServer: no channel ${ref}`);
    return ch;
  }

  private found(messageId: string) {
    const f = this.store.findMessage(messageId);
    if (!f) throw new Error(`FakeDiscordServer: no message ${messageId}`);
    return f;
  }

  private injected(id: string): InjectedMessage {
    const { channel, message } = this.found(id);
    const out: InjectedMessage = {
      id, channelId: channel.id, authorId: message.authorId, delivered: this.lastDispatch?.delivered ?? 0, sentAt: this.lastDispatch?.perfAt ?? 0,
      view: () => this.messageView(id),
    };
    if (channel.guildId) out.guildId = channel.guildId;
    return out;
  }

  private interact(built: ReturnType<typeof slashInteraction>, ch: StoredChannel): InteractionHandle {
    const { payload, rec } = built;
    if (ch.type !== ChannelType.DM && !userCanSee(this, ch, this.store.resolveUser(rec.userId))) throw new Error(`interaction: the user cannot see channel ${ch.id}`);
    this.interactions.add(rec);
    this.dispatch({ t: 'INTERACTION_CREATE', guildId: ch.guildId, build: () => structuredClone(payload) });
    this.changed();
    const view = (): InteractionView => this.interaction(rec.id);
    const handle: InteractionHandle = {
      id: rec.id, token: rec.token, channelId: ch.id, userId: rec.userId, delivered: this.lastDispatch?.delivered ?? 0, sentAt: this.lastDispatch?.perfAt ?? 0,
      view,
      waitForAck: (timeoutMs = 5000) => this.waitFor(() => (rec.ack ? view() : undefined), timeoutMs, `ack of interaction ${rec.id}`),
      waitForResponse: (match = () => true, timeoutMs = 5000) =>
        this.waitFor(() => {
          const r = view().response;
          const filled = rec.ack?.type !== 6 || (r?.editedAt != null && r.editedAt >= rec.ack.at);
          return r && !r.loading && filled && match(r) ? r : undefined;
        }, timeoutMs, `response to interaction ${rec.id}`),
    };
    if (ch.guildId) handle.guildId = ch.guildId;
    return handle;
  }
}
