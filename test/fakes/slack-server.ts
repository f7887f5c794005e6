/**
 * FakeSlackServer: a Slack platform stand-in on 127.0.0.1 for end-to-end tests and benchmarks. Speaks
 * the real wire protocols (Web API, uploads and `url_private`, `response_url`, signed Events API over
 * HTTP, Socket Mode) with Slack-like rate limits and forced faults. Tests act as people (injectors),
 * read what people see (views), inspect the call log and await conditions with `waitFor` (no sleeps).
 * Events: 'call' (SlackCallRecord), 'delivery' (SlackDelivery, per attempt), 'change' (anything).
 */
import type { AccountState } from './slack-api';
import { buttonsOf } from './slack-blocks';
import type { SlackCallRecord } from './slack-call-log';
import type { SlackDelivery } from './slack-delivery';
import { blockActionsPayload, slashCommandFields } from './slack-events';
import type { SlackFaultSpec } from './slack-faults';
import * as inject from './slack-inject';
import type { SendOptions } from './slack-outbound';
import type { RateLimitConfig } from './slack-rate-limit';
import type { ResponseUrlRecord } from './slack-response-url';
import { SlackServerCore } from './slack-server-core';
import type { DisconnectReason, SocketConnectionView } from './slack-socket';
import type { ChannelInput, UserInput } from './slack-store';
import { assistantView, channelView, messageView, threadView, type AssistantThreadView, type SlackChannelView, type SlackMessageView } from './slack-views';

export { DEFAULT_SCOPES, type FakeSlackOptions } from './slack-server-core';

/** What an injector did: the message in the fake's state (when there is one) and its delivery. */
export interface InjectResult {
  channel: string;
  ts: string;
  thread_ts?: string;
  delivery: SlackDelivery;
}

export class FakeSlackServer extends SlackServerCore {
  // ---- test-side: setting up the workspace ----------------------------------------------------

  addUser(input: UserInput): string {
    return this.store.user(input).id;
  }

  /** A conversation (public by default, bot a member unless `botMember: false`); returns its id. */
  addChannel(input: ChannelInput): string {
    const ch = this.store.channel({ botMember: true, ...input });
    this.changed();
    return ch.id;
  }

  /** The bot's IM with `user` (id starting with D), created on first use. */
  dm(user: string): string {
    this.store.user(user);
    return this.store.im(user).id;
  }

  setBotMember(channel: string, member: boolean): void {
    this.requireChannel(channel).botMember = member;
  }

  setScopes(scopes: string[]): void {
    this.scopes = new Set(scopes);
  }

  /** 'inactive' → every bot-token call answers account_inactive; 'revoked' → token_revoked. */
  setAccountState(state: AccountState): void {
    this.account = state;
  }

  // ---- test-side: acting as people ------------------------------------------------------------

  /** A person posts in a channel, thread (`thread_ts`) or IM (channel_type "im"), optionally with files. */
  message(channel: string, user: string, text: string, opts: inject.UserMessageOptions & SendOptions = {}): InjectResult {
    return this.emitInjected(inject.userMessage(this.store, channel, user, text, opts), opts);
  }

  /** A DM from `user` to the bot (in a thread with `thread_ts`). */
  dmMessage(user: string, text: string, opts: inject.UserMessageOptions & SendOptions = {}): InjectResult {
    return this.message(this.dm(user), user, text, opts);
  }

  /** A person mentions the bot: an `app_mention` event whose text contains `<@BOTUSERID>`. */
  mention(channel: string, user: string, text: string, opts: inject.UserMessageOptions & SendOptions & { alsoMessageEvent?: boolean } = {}): InjectResult {
    const m = inject.mention(this.store, channel, user, text, opts);
    if (opts.alsoMessageEvent) this.out.event(m.messageEvent, opts);
    return this.emitInjected(m, opts);
  }

  /** A person edits their message (`message_changed`). */
  editMessage(channel: string, ts: string, text: string, opts: SendOptions = {}): InjectResult {
    return this.emitInjected(inject.editUserMessage(this.store, channel, ts, text), opts);
  }

  /** A person deletes a message (`message_deleted`). */
  deleteMessage(channel: string, ts: string, opts: SendOptions = {}): InjectResult {
    return this.emitInjected(inject.deleteUserMessage(this.store, channel, ts), opts);
  }

  /** Another app's bot posts (`bot_message`). */
  botMessage(channel: string, input: { botId?: string; username?: string; text: string; thread_ts?: string }, opts: SendOptions = {}): InjectResult {
    return this.emitInjected(inject.otherBotMessage(this.store, channel, input), opts);
  }

  /** The user opens the assistant pane: `assistant_thread_started` for a new thread in their IM. */
  assistantThreadStarted(user: string, context: { channel_id?: string } = {}, opts: SendOptions = {}): InjectResult {
    return this.emitInjected(inject.assistantThreadStarted(this.store, user, context), opts);
  }

  /** Any inner event, wrapped in an `event_callback` envelope. */
  sendEvent(event: Record<string, unknown>, opts: SendOptions = {}): SlackDelivery {
    return this.out.event(event, opts);
  }

  /** An Events API body exactly as given (keeps its event_id), e.g. a hand-made or replayed envelope. */
  sendEnvelope(body: Record<string, unknown>, opts: SendOptions = {}): SlackDelivery {
    return this.out.envelope(body, opts);
  }

  /** Sends an earlier event again with X-Slack-Retry-Num / retry_attempt (same event_id). */
  redeliver(delivery: SlackDelivery, opts: { retryNum?: number; reason?: string } = {}): SlackDelivery {
    return this.out.redeliver(delivery, opts.retryNum ?? Math.max(1, delivery.attempts.length), opts.reason ?? 'http_timeout');
  }

  /** The `url_verification` challenge Slack sends when a Request URL is saved. */
  urlVerification(challenge = 'fake-challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', opts: SendOptions = {}): SlackDelivery {
    return this.out.urlVerification(challenge, opts);
  }

  /** A person clicks a button (by action_id, value or label) on the message with this ts: `block_actions`. */
  clickButton(messageTs: string, actionIdOrValue: string, user = this.defaultUser, opts: SendOptions = {}): SlackDelivery & { responseUrl: string } {
    const msg = this.store.findByTs(messageTs);
    if (!msg) throw new Error(`clickButton: no message ${messageTs}`);
    const button = buttonsOf(msg.blocks).find((b) => b.action_id === actionIdOrValue || b.value === actionIdOrValue || b.text === actionIdOrValue);
    if (!button) throw new Error(`clickButton: message ${messageTs} has no button "${actionIdOrValue}"`);
    const ch = this.store.channels.get(msg.channel)!;
    const rec = this.responses.create(ch.id, user, msg.ts);
    const payload = blockActionsPayload(this.store, { msg, ch, button, userId: user, responseUrl: rec.url, verificationToken: this.verificationToken });
    return Object.assign(this.out.interactive(payload, opts), { responseUrl: rec.url });
  }

  /** A person runs a slash command in a channel (default: general). */
  slashCommand(command: string, text: string, opts: SendOptions & { channel?: string; user?: string } = {}): SlackDelivery & { responseUrl: string } {
    const ch = this.requireChannel(opts.channel ?? this.defaultChannel);
    const user = opts.user ?? this.defaultUser;
    const rec = this.responses.create(ch.id, user);
    const fields = slashCommandFields(this.store, { command, text, userId: user, ch, responseUrl: rec.url, verificationToken: this.verificationToken });
    return Object.assign(this.out.slash(fields, opts), { responseUrl: rec.url });
  }

  // ---- test-side: observing ---------------------------------------------------------------------

  /** A conversation's top level as its members see it. */
  channelState(channel: string): SlackChannelView {
    return channelView(this.store, this.requireChannel(channel));
  }

  /** A thread as its readers see it: parent then replies, oldest first (the assistant-thread root left out). */
  thread(channel: string, threadTs: string): SlackMessageView[] {
    return threadView(this.store, this.requireChannel(channel), threadTs).filter((m) => m.subtype !== 'assistant_app_thread');
  }

  /** The visible text of each message in the thread, in order. */
  threadTexts(channel: string, threadTs: string): string[] {
    return this.thread(channel, threadTs).map((m) => m.visibleText);
  }

  /** The message with this ts (any conversation), as displayed. */
  messageState(ts: string): SlackMessageView | undefined {
    const m = this.store.findByTs(ts);
    return m ? messageView(this.store, m) : undefined;
  }

  /** Messages the bot posted in a conversation (threads included), oldest first. */
  botMessages(channel: string): SlackMessageView[] {
    const ch = this.requireChannel(channel);
    return ch.order.map((ts) => ch.messages.get(ts)!).filter((m) => m.fromBot && m.bot_id === this.store.bot.botId && m.subtype !== 'assistant_app_thread').map((m) => messageView(this.store, m));
  }

  /** Ephemeral messages shown to one user (optionally in one conversation). */
  ephemeralFor(user: string, channel?: string): Array<{ channel: string; ts: string; text: string; blocks?: unknown[]; thread_ts?: string; via: string }> {
    return this.store.ephemeral.filter((e) => e.user === user && (channel === undefined || e.channel === channel)).map((e) => structuredClone(e));
  }

  assistantThread(channel: string, threadTs: string): AssistantThreadView | undefined {
    const t = this.store.assistantThreads.get(`${channel}:${threadTs}`);
    return t ? assistantView(t, this.store.channels.get(channel), this.store, this.clock.now()) : undefined;
  }

  responseUrl(url: string): ResponseUrlRecord | undefined {
    return [...this.responses.records.values()].find((r) => r.url === url);
  }

  socketConnections(): SocketConnectionView[] {
    return this.socket.connections();
  }

  // ---- test-side: controlling -----------------------------------------------------------------

  /** Sends Socket Mode `{type:"disconnect", reason}` (to one connection or all); optionally closes after. */
  socketDisconnect(reason: DisconnectReason = 'refresh_requested', opts: { connectionId?: number; closeAfterMs?: number } = {}): void {
    this.socket.disconnect(reason, opts.connectionId, opts.closeAfterMs);
  }

  /** Cuts Socket Mode connections without a close frame. */
  dropSocket(connectionId?: number): void {
    this.socket.drop(connectionId);
  }

  /** Turns connections into zombies: open, but no pongs, no pings, nothing delivered. */
  zombieSocket(connectionId?: number, on = true): void {
    this.socket.setZombie(connectionId, on);
  }

  // ---- internals ----------------------------------------------------------------------------------

  private emitInjected(i: inject.Injected, opts: SendOptions): InjectResult {
    const delivery = this.out.event(i.event, opts);
    const r: InjectResult = { channel: i.ch.id, ts: i.msg.ts, delivery };
    if (i.msg.thread_ts !== undefined) r.thread_ts = i.msg.thread_ts;
    this.changed();
    return r;
  }
}

export type {
  AssistantThreadView, RateLimitConfig, ResponseUrlRecord, SendOptions, SlackCallRecord, SlackChannelView, SlackDelivery, SlackFaultSpec, SlackMessageView,
  SocketConnectionView,
};
