/**
 * Test-facing views of the fake Discord world: a message as a user sees it (final content, buttons
 * row by row, attachments, edits, pings, ephemeral/loading state), a channel or thread as one user
 * sees it (visible messages in order, its threads, whether "Bot is typing…" shows), and an
 * interaction's progress (acknowledgement, latency, response message, follow-ups).
 */
import type { InteractionBook, InteractionRecord, InteractionState } from './discord-interactions';
import type { DiscordStore, PingReport, StoredChannel, StoredMessage } from './discord-store';
import { ComponentType, MessageFlag, type DcAllowedMentions, type DcComponent, type DcEmbed } from './discord-types';

export interface ButtonView {
  label?: string;
  customId?: string;
  style: number;
  url?: string;
  disabled: boolean;
}

export interface MessageView {
  id: string;
  channelId: string;
  authorId: string;
  author: string;
  fromBot: boolean;
  type: number;
  content: string;
  embeds: DcEmbed[];
  /** Buttons per action row (V2 messages: one row per row/section found). */
  buttons: ButtonView[][];
  components: DcComponent[];
  attachments: Array<{ id: string; filename: string; size: number; contentType?: string }>;
  flags: number;
  ephemeral: boolean;
  visibleTo?: string;
  /** A deferred interaction reply still showing "thinking…". */
  loading: boolean;
  edited: boolean;
  editCount: number;
  /** Every content the message had, oldest first, ending with the current one. */
  versions: string[];
  deleted: boolean;
  threadId?: string;
  replyTo?: string;
  pinged: PingReport;
  mentions: StoredMessage['mentions'];
  allowedMentions?: DcAllowedMentions;
  reactions: Array<{ emoji: string; count: number; me: boolean }>;
  interactionId?: string;
  createdAt: number;
  editedAt: number | null;
}

export interface ChannelView {
  id: string;
  name: string;
  type: number;
  guildId?: string;
  parentId?: string;
  archived?: boolean;
  locked?: boolean;
  messages: MessageView[];
  threads: Array<{ id: string; name: string; archived: boolean; starterMessageId?: string }>;
  /** True while the bot's last typing signal (10 s) has not been ended by a bot message. */
  botTyping: boolean;
  typingEvents: number;
}

export interface InteractionView {
  id: string;
  token: string;
  type: number;
  commandName?: string;
  customId?: string;
  channelId: string;
  userId: string;
  state: InteractionState;
  acked: boolean;
  ackType?: number;
  /** Clock ms from the interaction to its acknowledgement. */
  ackLatencyMs?: number;
  callbacks: InteractionRecord['callbacks'];
  /** The reply (types 4/5) or the component's message (types 6/7), as the user sees it now. */
  response?: MessageView;
  followups: MessageView[];
  modal?: unknown;
}

function rowsOf(components: DcComponent[]): ButtonView[][] {
  const rows: ButtonView[][] = [];
  const visit = (c: DcComponent): void => {
    if (c.type === ComponentType.ActionRow) {
      rows.push((c.components ?? []).filter((b) => b.type === ComponentType.Button).map(button));
      return;
    }
    if (c.type === ComponentType.Section && c.accessory?.type === ComponentType.Button) rows.push([button(c.accessory)]);
    c.components?.forEach(visit);
  };
  components.forEach(visit);
  return rows;
}

function button(b: DcComponent): ButtonView {
  const v: ButtonView = { style: b.style ?? 0, disabled: b.disabled === true };
  if (b.label !== undefined) v.label = b.label;
  if (b.custom_id !== undefined) v.customId = b.custom_id;
  if (b.url !== undefined) v.url = b.url;
  return v;
}

export function messageView(store: DiscordStore, m: StoredMessage): MessageView {
  const author = store.users.get(m.authorId)?.user;
  const v: MessageView = {
    id: m.id, channelId: m.channelId, authorId: m.authorId, author: author?.username ?? m.authorId, fromBot: m.authorId === store.bot.id,
    type: m.type, content: m.content, embeds: structuredClone(m.embeds), buttons: rowsOf(m.components), components: structuredClone(m.components),
    attachments: m.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size, contentType: a.content_type })), flags: m.flags,
    ephemeral: m.ephemeralTo !== undefined, loading: (m.flags & MessageFlag.Loading) !== 0, edited: m.editedAt !== null,
    editCount: m.history.length, versions: [...m.history.map((h) => h.content), m.content], deleted: m.deleted, pinged: structuredClone(m.pings),
    mentions: structuredClone(m.mentions), reactions: m.reactions.map((r) => ({ emoji: r.emoji.id ? `${r.emoji.name}:${r.emoji.id}` : r.emoji.name, count: r.userIds.length, me: r.userIds.includes(store.bot.id) })),
    createdAt: m.createdAt, editedAt: m.editedAt,
  };
  if (m.ephemeralTo) v.visibleTo = m.ephemeralTo;
  if (m.threadId) v.threadId = m.threadId;
  if (m.reference) v.replyTo = m.reference.message_id;
  if (m.allowedMentions) v.allowedMentions = structuredClone(m.allowedMentions);
  if (m.interaction) v.interactionId = m.interaction.id;
  return v;
}

/** What `viewer` (or anyone, when absent) sees in a channel: no deleted messages, only their own ephemerals. */
export function channelView(store: DiscordStore, ch: StoredChannel, now: number, viewer?: string): ChannelView {
  const messages = [...ch.messages.values()]
    .filter((m) => !m.deleted && (!m.ephemeralTo || m.ephemeralTo === viewer))
    .map((m) => messageView(store, m));
  const threads = [...store.channels.values()]
    .filter((c) => c.thread && c.parentId === ch.id)
    .map((c) => ({ id: c.id, name: c.name, archived: c.thread!.archived, ...(ch.messages.has(c.id) ? { starterMessageId: c.id } : {}) }));
  const lastTyping = ch.typing.filter((t) => t.userId === store.bot.id).at(-1);
  const lastBotMessage = [...ch.messages.values()].filter((m) => m.authorId === store.bot.id && !m.ephemeralTo).at(-1);
  const botTyping = !!lastTyping && now - lastTyping.at < 10_000 && !(lastBotMessage && lastBotMessage.createdAt >= lastTyping.at);
  const v: ChannelView = {
    id: ch.id, name: ch.name, type: ch.type, messages, threads, botTyping, typingEvents: ch.typing.filter((t) => t.userId === store.bot.id).length,
  };
  if (ch.guildId) v.guildId = ch.guildId;
  if (ch.parentId) v.parentId = ch.parentId;
  if (ch.thread) {
    v.archived = ch.thread.archived;
    v.locked = ch.thread.locked;
  }
  return v;
}

export function interactionView(store: DiscordStore, book: InteractionBook, rec: InteractionRecord, now: number): InteractionView {
  const v: InteractionView = {
    id: rec.id, token: rec.token, type: rec.type, channelId: rec.channelId, userId: rec.userId, state: book.state(rec, now), acked: !!rec.ack,
    callbacks: rec.callbacks.map((c) => ({ ...c })),
    followups: rec.followupIds.map((id) => store.findMessage(id)).filter((f) => f !== undefined).map((f) => messageView(store, f.message)),
  };
  if (rec.commandName) v.commandName = rec.commandName;
  if (rec.customId) v.customId = rec.customId;
  if (rec.ack) {
    v.ackType = rec.ack.type;
    v.ackLatencyMs = rec.ack.at - rec.createdAt;
  }
  const orig = rec.originalMessageId ? store.findMessage(rec.originalMessageId) : undefined;
  if (orig) v.response = messageView(store, orig.message);
  if (rec.modal !== undefined) v.modal = rec.modal;
  return v;
}
