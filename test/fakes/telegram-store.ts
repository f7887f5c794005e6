/**
 * The fake Telegram world: users, chats (private / group / supergroup, forum topics) created on first
 * mention, per-chat message histories with per-chat message ids, uploaded/registered files, callback
 * queries and bot commands. Renders stored messages as Bot API `Message` JSON and as the test-facing
 * views (`MessageView`, `ChatView`, `CallbackAnswerView`: what a user would see). Every lookup is a Map access; nothing scans all chats.
 */
import type {
  ChatType, FakeClock, TgBotCommand, TgChat, TgDocument, TgEntity, TgMessage, TgPhotoSize, TgReaction, TgReplyMarkup, TgUser,
} from './telegram-types';
import { isInlineKeyboard } from './telegram-markup';

export type UserInput = number | (Partial<TgUser> & { id: number });
export type ChatInput =
  | number
  | { id: number; type?: ChatType; title?: string; username?: string; first_name?: string; last_name?: string; is_forum?: boolean };

export interface StoredMessage {
  message_id: number;
  chatId: number;
  fromBot: boolean;
  from: TgUser;
  date: number;
  edit_date?: number;
  text?: string;
  caption?: string;
  entities: TgEntity[];
  parse_mode?: string;
  /** The text or caption exactly as the bot sent it (before markup parsing). */
  source?: string;
  reply_markup?: TgReplyMarkup;
  message_thread_id?: number;
  is_topic_message?: true;
  reply_to_message_id?: number;
  photo?: TgPhotoSize[];
  document?: TgDocument;
  editCount: number;
  reactions: TgReaction[];
}

export interface DraftState {
  draft_id: number;
  text: string;
  entities: TgEntity[];
  parse_mode?: string;
  message_thread_id?: number;
  updates: number;
  lastAt: number;
}

export interface ChatActionRecord {
  action: string;
  at: number;
  message_thread_id?: number;
}

export interface StoredChat {
  chat: TgChat;
  messages: Map<number, StoredMessage>;
  nextMessageId: number;
  topics: Set<number>;
  draft?: DraftState;
  draftUpdates: number;
  actions: ChatActionRecord[];
  rateLimited: number;
  deletedCount: number;
  botBlocked: boolean;
}

export interface StoredFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  data: Buffer;
  file_name?: string;
  mime_type?: string;
}

export interface CallbackRecord {
  id: string;
  chatId?: number;
  messageId?: number;
  data?: string;
  from: TgUser;
  injectedAt: number;
  answeredAt?: number;
  answer?: { text?: string; show_alert?: boolean; url?: string; cache_time?: number };
}

/** A callback query as the test sees it: who pressed what, and whether and how the bot answered. */
export interface CallbackAnswerView {
  id: string;
  chatId?: number;
  messageId?: number;
  data?: string;
  fromId: number;
  answered: boolean;
  /** Clock ms from the press to the answer. */
  latencyMs?: number;
  answer?: { text?: string; show_alert?: boolean; url?: string; cache_time?: number };
}

/** A message as a user of the chat sees it. */
export interface MessageView {
  message_id: number;
  chat_id: number;
  from: 'bot' | 'user';
  user_id: number;
  date: number;
  edit_date?: number;
  text?: string;
  caption?: string;
  entities: TgEntity[];
  parse_mode?: string;
  source?: string;
  reply_markup?: TgReplyMarkup;
  message_thread_id?: number;
  reply_to_message_id?: number;
  photo?: { file_id: string; data: Buffer };
  document?: { file_id: string; file_name?: string; mime_type?: string; data: Buffer };
  editCount: number;
  reactions: TgReaction[];
}

export interface ChatView {
  chat: TgChat;
  messages: MessageView[];
  /** The bot's live draft, if one is showing (drafts vanish after `draftLifetimeMs` or when the bot sends). */
  draft?: { draft_id: number; text: string; entities: TgEntity[]; message_thread_id?: number; updates: number };
  draftUpdates: number;
  actions: ChatActionRecord[];
  rateLimitedCount: number;
  deletedCount: number;
  topics: number[];
}

const SUPERGROUP_MIN = -1_000_000_000_000;

export class TelegramStore {
  readonly users = new Map<number, TgUser>();
  readonly chats = new Map<number, StoredChat>();
  readonly files = new Map<string, StoredFile>();
  readonly filesByPath = new Map<string, StoredFile>();
  readonly callbacks = new Map<string, CallbackRecord>();
  readonly commands = new Map<string, TgBotCommand[]>();
  private byUsername = new Map<string, StoredChat>();
  private fileSeq = 0;
  private callbackSeq = 0;

  constructor(readonly bot: TgUser, private readonly clock: FakeClock, readonly defaultUserId = 7_000_001) {}

  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  user(input: UserInput | undefined, fallbackId = this.defaultUserId): TgUser {
    const fields = typeof input === 'number' ? { id: input } : (input ?? { id: fallbackId });
    const known = this.users.get(fields.id);
    const merged: TgUser = {
      is_bot: false,
      first_name: `User ${fields.id}`,
      ...known,
      ...fields,
    };
    this.users.set(merged.id, merged);
    return merged;
  }

  /** The chat with this id, created (or updated with the given fields) as needed. */
  chat(input: ChatInput, privateUser?: TgUser): StoredChat {
    const fields = typeof input === 'number' ? { id: input } : input;
    let stored = this.chats.get(fields.id);
    if (!stored) {
      const type: ChatType = fields.type ?? (fields.id > 0 ? 'private' : fields.id <= SUPERGROUP_MIN ? 'supergroup' : 'group');
      const chat: TgChat = { id: fields.id, type };
      if (type === 'private') {
        const u = privateUser?.id === fields.id ? privateUser : this.user(fields.id);
        chat.first_name = u.first_name;
        if (u.last_name) chat.last_name = u.last_name;
        if (u.username) chat.username = u.username;
      } else {
        chat.title = `Chat ${fields.id}`;
      }
      stored = {
        chat, messages: new Map(), nextMessageId: 1, topics: new Set(), draftUpdates: 0, actions: [], rateLimited: 0,
        deletedCount: 0, botBlocked: false,
      };
      this.chats.set(fields.id, stored);
    }
    const c = stored.chat;
    if (typeof input === 'object') {
      if (input.title !== undefined) c.title = input.title;
      if (input.first_name !== undefined) c.first_name = input.first_name;
      if (input.last_name !== undefined) c.last_name = input.last_name;
      if (input.username !== undefined) {
        c.username = input.username;
        this.byUsername.set(input.username.toLowerCase(), stored);
      }
      if (input.is_forum === true) c.is_forum = true;
      if (input.is_forum === false) delete c.is_forum;
    }
    if (c.username) this.byUsername.set(c.username.toLowerCase(), stored);
    return stored;
  }

  findChat(id: number | string): StoredChat | undefined {
    if (typeof id === 'number') return this.chats.get(id);
    return this.byUsername.get(id.replace(/^@/, '').toLowerCase());
  }

  addMessage(chat: StoredChat, fields: Omit<StoredMessage, 'message_id' | 'chatId' | 'date' | 'editCount' | 'reactions' | 'entities'> & { entities?: TgEntity[] }): StoredMessage {
    const msg: StoredMessage = {
      ...fields,
      entities: fields.entities ?? [],
      message_id: chat.nextMessageId++,
      chatId: chat.chat.id,
      date: this.nowSeconds(),
      editCount: 0,
      reactions: [],
    };
    chat.messages.set(msg.message_id, msg);
    return msg;
  }

  registerFile(data: Buffer, opts: { fileName?: string; mimeType?: string; folder?: string } = {}): StoredFile {
    const n = ++this.fileSeq;
    const folder = opts.folder ?? 'documents';
    const ext = opts.fileName && opts.fileName.includes('.') ? opts.fileName.slice(opts.fileName.lastIndexOf('.')) : '';
    const file: StoredFile = {
      file_id: `FAKEFILE${n}`,
      file_unique_id: `FAKEUNIQ${n}`,
      file_path: `${folder}/file_${n}${ext}`,
      data,
      file_name: opts.fileName,
      mime_type: opts.mimeType,
    };
    this.files.set(file.file_id, file);
    this.filesByPath.set(file.file_path, file);
    return file;
  }

  photoSizes(file: StoredFile, width = 800, height = 600): TgPhotoSize[] {
    return [{ file_id: file.file_id, file_unique_id: file.file_unique_id, width, height, file_size: file.data.length }];
  }

  documentOf(file: StoredFile): TgDocument {
    const d: TgDocument = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length };
    if (file.file_name) d.file_name = file.file_name;
    if (file.mime_type) d.mime_type = file.mime_type;
    return d;
  }

  newCallback(rec: Omit<CallbackRecord, 'id' | 'injectedAt'>): CallbackRecord {
    const id = String(4_000_000_000_000 + ++this.callbackSeq);
    const full: CallbackRecord = { ...rec, id, injectedAt: this.clock.now() };
    this.callbacks.set(id, full);
    return full;
  }

  /** Bot API `Message` JSON; a replied-to message is embedded one level deep, as Telegram does. */
  toWire(msg: StoredMessage, withReply = true): TgMessage {
    const chat = this.chats.get(msg.chatId)!;
    const out: TgMessage = { message_id: msg.message_id, from: { ...msg.from }, chat: { ...chat.chat }, date: msg.date };
    if (msg.message_thread_id !== undefined) out.message_thread_id = msg.message_thread_id;
    if (msg.is_topic_message) out.is_topic_message = true;
    if (msg.edit_date !== undefined) out.edit_date = msg.edit_date;
    if (withReply && msg.reply_to_message_id !== undefined) {
      const replied = chat.messages.get(msg.reply_to_message_id);
      if (replied) out.reply_to_message = this.toWire(replied, false);
    }
    if (msg.text !== undefined) {
      out.text = msg.text;
      if (msg.entities.length) out.entities = msg.entities.map((e) => ({ ...e }));
    }
    if (msg.caption !== undefined) {
      out.caption = msg.caption;
      if (msg.entities.length) out.caption_entities = msg.entities.map((e) => ({ ...e }));
    }
    if (msg.photo) out.photo = msg.photo.map((p) => ({ ...p }));
    if (msg.document) out.document = { ...msg.document };
    if (isInlineKeyboard(msg.reply_markup)) out.reply_markup = structuredClone(msg.reply_markup);
    return out;
  }

  view(msg: StoredMessage): MessageView {
    const v: MessageView = {
      message_id: msg.message_id,
      chat_id: msg.chatId,
      from: msg.fromBot ? 'bot' : 'user',
      user_id: msg.from.id,
      date: msg.date,
      entities: msg.entities.map((e) => ({ ...e })),
      editCount: msg.editCount,
      reactions: msg.reactions.map((r) => ({ ...r })),
    };
    if (msg.edit_date !== undefined) v.edit_date = msg.edit_date;
    if (msg.text !== undefined) v.text = msg.text;
    if (msg.caption !== undefined) v.caption = msg.caption;
    if (msg.parse_mode !== undefined) v.parse_mode = msg.parse_mode;
    if (msg.source !== undefined) v.source = msg.source;
    if (msg.reply_markup !== undefined) v.reply_markup = structuredClone(msg.reply_markup);
    if (msg.message_thread_id !== undefined) v.message_thread_id = msg.message_thread_id;
    if (msg.reply_to_message_id !== undefined) v.reply_to_message_id = msg.reply_to_message_id;
    if (msg.photo) {
      const f = this.files.get(msg.photo[0].file_id);
      v.photo = { file_id: msg.photo[0].file_id, data: f ? f.data : Buffer.alloc(0) };
    }
    if (msg.document) {
      const f = this.files.get(msg.document.file_id);
      v.document = { file_id: msg.document.file_id, file_name: msg.document.file_name, mime_type: msg.document.mime_type, data: f ? f.data : Buffer.alloc(0) };
    }
    return v;
  }

  callbackView(id: string): CallbackAnswerView | undefined {
    const r = this.callbacks.get(id);
    if (!r) return undefined;
    const v: CallbackAnswerView = { id: r.id, chatId: r.chatId, messageId: r.messageId, data: r.data, fromId: r.from.id, answered: r.answeredAt !== undefined };
    if (r.answeredAt !== undefined) v.latencyMs = r.answeredAt - r.injectedAt;
    if (r.answer) v.answer = { ...r.answer };
    return v;
  }

  chatView(chat: StoredChat, draftLifetimeMs: number): ChatView {
    const draft = chat.draft && this.clock.now() - chat.draft.lastAt <= draftLifetimeMs ? chat.draft : undefined;
    const view: ChatView = {
      chat: { ...chat.chat },
      messages: [...chat.messages.values()].map((m) => this.view(m)),
      draftUpdates: chat.draftUpdates,
      actions: chat.actions.map((a) => ({ ...a })),
      rateLimitedCount: chat.rateLimited,
      deletedCount: chat.deletedCount,
      topics: [...chat.topics].sort((a, b) => a - b),
    };
    if (draft) {
      view.draft = { draft_id: draft.draft_id, text: draft.text, entities: draft.entities.map((e) => ({ ...e })), updates: draft.updates };
      if (draft.message_thread_id !== undefined) view.draft.message_thread_id = draft.message_thread_id;
    }
    return view;
  }
}
