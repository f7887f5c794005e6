/**
 * What a test "does as a person in the workspace": post a message (channel, thread or IM, with files),
 * mention the bot, edit or delete their message, have another bot post, open an assistant thread.
 * Each action lands in the fake's channel state first (so thread views include the person's messages,
 * with a real-looking ts) and returns the inner event Slack would send. Test mistakes throw.
 */
import { appMentionEvent, assistantThreadStartedEvent, messageChangedEvent, messageDeletedEvent, messageEvent } from './slack-events';
import type { SlackStore } from './slack-store';
import type { StoredChannel, StoredMessage } from './slack-types';
import { messageWire, richTextBlocks } from './slack-wire';

export interface InjectFile {
  name: string;
  data: Buffer | string;
  mimetype?: string;
  title?: string;
}

export interface UserMessageOptions {
  thread_ts?: string;
  files?: InjectFile[];
  /** Also broadcast a thread reply to the channel. */
  reply_broadcast?: boolean;
}

export interface Injected {
  msg: StoredMessage;
  ch: StoredChannel;
  event: Record<string, unknown>;
}

function requireChannel(store: SlackStore, ref: string): StoredChannel {
  const ch = store.resolveChannel(ref);
  if (!ch) throw new Error(`FakeSlackServer: no conversation "${ref}" (addChannel or dm() first)`);
  return ch;
}

function requireThread(ch: StoredChannel, threadTs: string | undefined): void {
  if (threadTs !== undefined && !ch.messages.has(threadTs)) throw new Error(`FakeSlackServer: ${ch.id} has no message ${threadTs} to reply to`);
}

export function userMessage(store: SlackStore, channel: string, user: string, text: string, opts: UserMessageOptions = {}): Injected {
  const ch = requireChannel(store, channel);
  requireThread(ch, opts.thread_ts);
  store.user(user);
  if (ch.kind === 'im' && ch.user !== user) throw new Error(`FakeSlackServer: ${ch.id} is the IM of ${ch.user}, not ${user}`);
  ch.members.add(user);
  const fileIds = (opts.files ?? []).map((f) => {
    const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
    const sf = store.newFile({ name: f.name, user, data, size: data.length, uploaded: true, completed: true, channels: [ch.id] });
    if (f.mimetype) sf.mimetype = f.mimetype;
    if (f.title) sf.title = f.title;
    return sf.id;
  });
  const msg = store.addMessage(ch, {
    fromBot: false, user, text, blocks: text ? richTextBlocks(text, store.shortId()) : undefined, thread_ts: opts.thread_ts,
    reply_broadcast: opts.thread_ts ? opts.reply_broadcast : undefined, files: fileIds, subtype: fileIds.length ? 'file_share' : undefined,
  });
  const event = messageEvent(store, msg, ch);
  if (fileIds.length) event.display_as_bot = false;
  return { msg, ch, event };
}

/** A message that @-mentions the bot (the mention is prepended when the text lacks it). */
export function mention(store: SlackStore, channel: string, user: string, text: string, opts: UserMessageOptions = {}): Injected & { messageEvent: Record<string, unknown> } {
  const tag = `<@${store.bot.userId}>`;
  const full = text.includes(tag) ? text : `${tag} ${text}`;
  const base = userMessage(store, channel, user, full, opts);
  return { ...base, messageEvent: base.event, event: appMentionEvent(store, base.msg, base.ch) };
}

export function editUserMessage(store: SlackStore, channel: string, ts: string, text: string): Injected {
  const ch = requireChannel(store, channel);
  const msg = ch.messages.get(ts);
  if (!msg || msg.fromBot) throw new Error(`FakeSlackServer: ${ch.id} has no user message ${ts}`);
  const before = messageWire(store, msg);
  msg.text = text;
  msg.blocks = richTextBlocks(text, store.shortId());
  msg.edited = { user: msg.user!, ts: store.nextTs() };
  msg.editCount++;
  return { msg, ch, event: messageChangedEvent(store, ch, before, msg) };
}

export function deleteUserMessage(store: SlackStore, channel: string, ts: string): Injected {
  const ch = requireChannel(store, channel);
  const msg = ch.messages.get(ts);
  if (!msg) throw new Error(`FakeSlackServer: ${ch.id} has no message ${ts}`);
  const before = messageWire(store, msg);
  store.deleteMessage(ch, ts);
  return { msg, ch, event: messageDeletedEvent(store, ch, before) };
}

/** A message from another app's bot (subtype bot_message), as an integration would post it. */
export function otherBotMessage(store: SlackStore, channel: string, input: { botId?: string; username?: string; text: string; thread_ts?: string }): Injected {
  const ch = requireChannel(store, channel);
  requireThread(ch, input.thread_ts);
  const msg = store.addMessage(ch, {
    fromBot: true, bot_id: input.botId ?? 'B0THERBOT1', username: input.username ?? 'other-bot', subtype: 'bot_message', text: input.text,
    thread_ts: input.thread_ts,
  });
  return { msg, ch, event: messageEvent(store, msg, ch) };
}

/** The user opens the assistant pane: Slack starts a thread in their IM with the app. */
export function assistantThreadStarted(store: SlackStore, user: string, context: { channel_id?: string } = {}): Injected {
  const ch = store.im(user);
  const msg = store.addMessage(ch, {
    fromBot: true, user: store.bot.userId, bot_id: store.bot.botId, app_id: store.bot.appId, subtype: 'assistant_app_thread', text: '',
  });
  store.assistantThread(ch.id, msg.ts);
  return { msg, ch, event: assistantThreadStartedEvent(store, user, ch, msg.ts, context) };
}
