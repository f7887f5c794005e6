/**
 * Builders for what Slack sends an app, in Slack's shapes: the Events API `event_callback` envelope
 * (token, team_id, api_app_id, event_id, event_time, authorizations…), the inner events (`message`
 * with channel_type and subtypes, `app_mention`, `assistant_thread_started`), the `block_actions`
 * interactivity payload and slash-command fields. Pure functions of the store and their inputs.
 */
import { randomUUID } from 'node:crypto';
import type { ButtonRef } from './slack-blocks';
import type { SlackStore } from './slack-store';
import type { StoredChannel, StoredMessage } from './slack-types';
import { messageWire } from './slack-wire';

export const CHANNEL_TYPE: Record<StoredChannel['kind'], string> = { public: 'channel', private: 'group', im: 'im', mpim: 'mpim' };

export interface EventCallback {
  token: string;
  team_id: string;
  context_team_id: string;
  context_enterprise_id: null;
  api_app_id: string;
  event: Record<string, unknown>;
  type: 'event_callback';
  event_id: string;
  event_time: number;
  authorizations: Array<Record<string, unknown>>;
  is_ext_shared_channel: boolean;
  event_context: string;
}

export function eventCallback(store: SlackStore, verificationToken: string, event: Record<string, unknown>): EventCallback {
  const id = store.newId('Ev');
  return {
    token: verificationToken, team_id: store.team.id, context_team_id: store.team.id, context_enterprise_id: null, api_app_id: store.bot.appId,
    event, type: 'event_callback', event_id: id, event_time: store.nowSeconds(),
    authorizations: [{ enterprise_id: null, team_id: store.team.id, user_id: store.bot.userId, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false, event_context: `4-${Buffer.from(`${store.team.id}:${id}`).toString('base64url')}`,
  };
}

/** The inner `message` event for a message a person (or another bot) posted. */
export function messageEvent(store: SlackStore, msg: StoredMessage, ch: StoredChannel): Record<string, unknown> {
  const wire = messageWire(store, msg);
  delete wire.reply_count;
  delete wire.reply_users_count;
  delete wire.latest_reply;
  delete wire.reply_users;
  delete wire.is_locked;
  delete wire.subscribed;
  if (msg.thread_ts === undefined) delete wire.thread_ts;
  const ev: Record<string, unknown> = { ...wire, channel: ch.id, event_ts: msg.ts, channel_type: CHANNEL_TYPE[ch.kind] };
  if (!msg.fromBot) ev.client_msg_id = randomUUID();
  return ev;
}

export function appMentionEvent(store: SlackStore, msg: StoredMessage, ch: StoredChannel): Record<string, unknown> {
  const ev = messageEvent(store, msg, ch);
  delete ev.channel_type;
  delete ev.subtype;
  return { ...ev, type: 'app_mention' };
}

export function messageChangedEvent(store: SlackStore, ch: StoredChannel, before: Record<string, unknown>, after: StoredMessage): Record<string, unknown> {
  const ts = store.nextTs();
  return {
    type: 'message', subtype: 'message_changed', message: messageWire(store, after), previous_message: before, channel: ch.id, hidden: true, ts,
    event_ts: ts, channel_type: CHANNEL_TYPE[ch.kind],
  };
}

export function messageDeletedEvent(store: SlackStore, ch: StoredChannel, before: Record<string, unknown>): Record<string, unknown> {
  const ts = store.nextTs();
  return {
    type: 'message', subtype: 'message_deleted', hidden: true, deleted_ts: before.ts, channel: ch.id, previous_message: before, ts, event_ts: ts,
    channel_type: CHANNEL_TYPE[ch.kind],
  };
}

export function assistantThreadStartedEvent(store: SlackStore, userId: string, ch: StoredChannel, threadTs: string, context: { channel_id?: string }): Record<string, unknown> {
  const ctx: Record<string, unknown> = { enterprise_id: null };
  if (context.channel_id) {
    ctx.channel_id = context.channel_id;
    ctx.team_id = store.team.id;
  }
  return { type: 'assistant_thread_started', assistant_thread: { user_id: userId, context: ctx, channel_id: ch.id, thread_ts: threadTs }, event_ts: store.nextTs() };
}

export const triggerId = (store: SlackStore): string =>
  `${Math.floor(store.nowSeconds())}.${store.newId('').replace(/^0+/, '')}.${randomUUID().replace(/-/g, '').slice(0, 32)}`;

export function userRef(store: SlackStore, userId: string): Record<string, unknown> {
  const u = store.user(userId);
  return { id: u.id, username: u.name, name: u.name, team_id: store.team.id };
}

export interface BlockActionsInput {
  msg: StoredMessage;
  ch: StoredChannel;
  button: ButtonRef;
  userId: string;
  responseUrl: string;
  verificationToken: string;
}

export function blockActionsPayload(store: SlackStore, input: BlockActionsInput): Record<string, unknown> {
  const { msg, ch, button, userId } = input;
  const container: Record<string, unknown> = { type: 'message', message_ts: msg.ts, channel_id: ch.id, is_ephemeral: false };
  if (msg.thread_ts !== undefined) container.thread_ts = msg.thread_ts;
  const action: Record<string, unknown> = {
    action_id: button.action_id, block_id: button.block_id, text: { type: 'plain_text', text: button.text, emoji: true }, type: 'button',
    action_ts: store.nextTs(),
  };
  if (button.value !== undefined) action.value = button.value;
  if (button.style !== undefined) action.style = button.style;
  return {
    type: 'block_actions', user: userRef(store, userId), api_app_id: store.bot.appId, token: input.verificationToken, container,
    trigger_id: triggerId(store), team: { id: store.team.id, domain: store.team.domain }, enterprise: null, is_enterprise_install: false,
    channel: { id: ch.id, name: ch.kind === 'im' ? 'directmessage' : ch.name }, message: messageWire(store, msg), state: { values: {} },
    response_url: input.responseUrl, actions: [action],
  };
}

export function slashCommandFields(store: SlackStore, input: { command: string; text: string; userId: string; ch: StoredChannel; responseUrl: string; verificationToken: string }): Record<string, string> {
  const u = store.user(input.userId);
  return {
    token: input.verificationToken, team_id: store.team.id, team_domain: store.team.domain, channel_id: input.ch.id,
    channel_name: input.ch.kind === 'im' ? 'directmessage' : input.ch.name, user_id: u.id, user_name: u.name, command: input.command, text: input.text,
    api_app_id: store.bot.appId, is_enterprise_install: 'false', response_url: input.responseUrl, trigger_id: triggerId(store),
  };
}
