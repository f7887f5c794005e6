/**
 * What a person in the workspace sees, for assertions: a message as displayed (its visible text: the
 * blocks when it has any, else markdown_text, else text; a stream's text as it has grown so far),
 * a thread (parent then replies, oldest first), a channel's top level, one user's ephemeral messages
 * and an assistant thread's status, title and suggested prompts. Views are copies, never live state.
 */
import { blocksText } from './slack-blocks';
import type { SlackStore } from './slack-store';
import type { AssistantThreadState, Block, Chunk, Reaction, StoredChannel, StoredMessage } from './slack-types';

export interface SlackFileView {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  size: number;
  data: Buffer;
}

export interface SlackMessageView {
  ts: string;
  channel: string;
  thread_ts?: string;
  from: 'bot' | 'user';
  user?: string;
  bot_id?: string;
  subtype?: string;
  /** The `text` field as stored (notification fallback when blocks are present). */
  text: string;
  markdown?: string;
  blocks?: Block[];
  /** What a reader sees: blocks rendered as text, else markdown_text, else text. */
  visibleText: string;
  files: SlackFileView[];
  reactions: Reaction[];
  editCount: number;
  edited: boolean;
  reply_broadcast?: boolean;
  metadata?: unknown;
  /** Native streams: state, number of appends, chunks received and the latest state of each task. */
  stream?: { state: 'in_progress' | 'completed'; appends: number; chunks: Chunk[]; tasks: Chunk[] };
  via?: 'api' | 'response_url';
  postedAt: number;
  changedAt: number;
}

export interface SlackChannelView {
  id: string;
  name: string;
  kind: StoredChannel['kind'];
  botMember: boolean;
  members: string[];
  /** Top-level messages (and replies broadcast to the channel), oldest first. */
  messages: SlackMessageView[];
  deletedCount: number;
  rateLimitedCount: number;
}

export interface AssistantThreadView {
  channel: string;
  thread_ts: string;
  /** The status line now showing ("" or undefined when none: cleared, replied to, or older than 2 min). */
  status?: string;
  loading_messages?: string[];
  statusHistory: Array<{ status: string; loading_messages?: string[]; at: number }>;
  title?: string;
  suggestedPrompts?: { title?: string; prompts: Array<{ title: string; message: string }> };
}

export const STATUS_LIFETIME_MS = 120_000;

export function messageView(store: SlackStore, msg: StoredMessage): SlackMessageView {
  let visibleText: string;
  if (msg.stream) {
    const tail = msg.blocks?.length ? blocksText(msg.blocks) : '';
    visibleText = [msg.markdown ?? '', tail].filter(Boolean).join('\n');
  } else if (msg.blocks && msg.blocks.length > 0) visibleText = blocksText(msg.blocks);
  else visibleText = msg.markdown ?? msg.text;
  const v: SlackMessageView = {
    ts: msg.ts, channel: msg.channel, from: msg.fromBot ? 'bot' : 'user', text: msg.text, visibleText,
    files: msg.files.map((id) => store.files.get(id)).filter((f) => !!f).map((f) => ({
      id: f!.id, name: f!.name, title: f!.title, mimetype: f!.mimetype, size: f!.size, data: f!.data ?? Buffer.alloc(0),
    })),
    reactions: msg.reactions.map((r) => ({ name: r.name, users: [...r.users], count: r.count })),
    editCount: msg.editCount, edited: msg.edited !== undefined, postedAt: msg.postedAt, changedAt: msg.changedAt,
  };
  if (msg.thread_ts !== undefined) v.thread_ts = msg.thread_ts;
  if (msg.user) v.user = msg.user;
  if (msg.bot_id) v.bot_id = msg.bot_id;
  if (msg.subtype) v.subtype = msg.subtype;
  if (msg.markdown !== undefined) v.markdown = msg.markdown;
  if (msg.blocks) v.blocks = structuredClone(msg.blocks);
  if (msg.reply_broadcast) v.reply_broadcast = true;
  if (msg.metadata !== undefined) v.metadata = structuredClone(msg.metadata);
  if (msg.via) v.via = msg.via;
  if (msg.stream) {
    v.stream = { state: msg.stream.state, appends: msg.stream.appends, chunks: structuredClone(msg.stream.chunks), tasks: structuredClone([...msg.stream.tasks.values()]) };
  }
  return v;
}

/** The thread as its readers see it: the parent (when it exists) then every reply, oldest first. */
export function threadView(store: SlackStore, ch: StoredChannel, threadTs: string): SlackMessageView[] {
  const root = store.threadRoot(ch, threadTs);
  const parent = ch.messages.get(root);
  const list = [...(parent ? [parent] : []), ...store.replies(ch, root)];
  return list.map((m) => messageView(store, m));
}

export function channelView(store: SlackStore, ch: StoredChannel): SlackChannelView {
  const top: SlackMessageView[] = [];
  for (const ts of ch.order) {
    const m = ch.messages.get(ts)!;
    if (m.thread_ts === undefined || m.thread_ts === m.ts || m.reply_broadcast) top.push(messageView(store, m));
  }
  return {
    id: ch.id, name: ch.name, kind: ch.kind, botMember: ch.botMember, members: [...ch.members], messages: top, deletedCount: ch.deletedCount,
    rateLimitedCount: ch.rateLimited,
  };
}

export function assistantView(t: AssistantThreadState, ch: StoredChannel | undefined, store: SlackStore, now: number): AssistantThreadView {
  const v: AssistantThreadView = { channel: t.channel, thread_ts: t.thread_ts, statusHistory: t.statusHistory.map((s) => ({ ...s })) };
  if (t.status && t.statusSetAt !== undefined) {
    const replied = ch ? store.replies(ch, t.thread_ts).some((m) => m.fromBot && m.postedAt >= t.statusSetAt! && m.subtype !== 'assistant_app_thread') : false;
    if (!replied && now - t.statusSetAt <= STATUS_LIFETIME_MS) {
      v.status = t.status;
      if (t.loading_messages) v.loading_messages = [...t.loading_messages];
    }
  }
  if (t.title !== undefined) v.title = t.title;
  if (t.suggestedPrompts) v.suggestedPrompts = structuredClone(t.suggestedPrompts);
  return v;
}
