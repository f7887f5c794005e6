/**
 * What a test "does as a user": post a message (text, entities, topic, reply, photo, document) or press
 * an inline button. Builds the stored message / callback record and the Update body a bot receives.
 * Like a Telegram client, it marks `/commands` and `@mentions` as entities when none are given.
 * Mistakes in the test (reply to a missing message, pressing a button that is not there) throw.
 */
import { buttonsOf } from './telegram-markup';
import type { CallbackRecord, ChatInput, StoredMessage, TelegramStore, UserInput } from './telegram-store';
import type { TgCallbackQuery, TgEntity, TgMessage } from './telegram-types';

export interface FileInput {
  data: Buffer | string;
  fileName?: string;
  mimeType?: string;
  width?: number;
  height?: number;
}

export interface InjectMessageInput {
  chat: ChatInput;
  /** Defaults to the private chat's user, or a stock group member. */
  from?: UserInput;
  text?: string;
  entities?: TgEntity[];
  message_thread_id?: number;
  /** message_id (in the same chat) this message replies to. */
  reply_to?: number;
  photo?: FileInput;
  document?: FileInput;
}

export type MessageRef = { message_id: number; chat: { id: number } } | { message_id: number; chat_id: number };

export interface InjectCallbackInput {
  message: MessageRef;
  data: string;
  from?: UserInput;
}

/** bot_command and mention entities, as a Telegram client would mark them. */
export function clientEntities(text: string): TgEntity[] {
  const out: TgEntity[] = [];
  const re = /(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?|@[A-Za-z0-9_]{5,32})(?=$|\s|[.,!?;:])/g;
  for (const m of text.matchAll(re)) {
    const offset = (m.index ?? 0) + m[1].length;
    out.push({ type: m[2].startsWith('/') ? 'bot_command' : 'mention', offset, length: m[2].length });
  }
  return out;
}

export function userMessage(store: TelegramStore, input: InjectMessageInput): StoredMessage {
  const chatId = typeof input.chat === 'number' ? input.chat : input.chat.id;
  const from = store.user(input.from ?? (chatId > 0 ? chatId : undefined));
  const chat = store.chat(input.chat, from);
  if (input.message_thread_id !== undefined && chat.chat.is_forum) chat.topics.add(input.message_thread_id);
  if (input.reply_to !== undefined && !chat.messages.has(input.reply_to)) {
    throw new Error(`injectMessage: chat ${chatId} has no message ${input.reply_to} to reply to`);
  }
  const toBuffer = (d: Buffer | string): Buffer => (typeof d === 'string' ? Buffer.from(d) : d);
  const text = input.text;
  const entities = input.entities ?? (text ? clientEntities(text) : []);
  const media = input.photo ?? input.document;
  const fields: Parameters<TelegramStore['addMessage']>[1] = {
    fromBot: false,
    from,
    entities,
    reply_to_message_id: input.reply_to,
  };
  if (input.message_thread_id !== undefined) {
    fields.message_thread_id = input.message_thread_id;
    if (chat.chat.is_forum) fields.is_topic_message = true;
  }
  if (input.photo) {
    const f = store.registerFile(toBuffer(input.photo.data), { fileName: input.photo.fileName, mimeType: input.photo.mimeType ?? 'image/jpeg', folder: 'photos' });
    fields.photo = store.photoSizes(f, input.photo.width, input.photo.height);
  } else if (input.document) {
    const f = store.registerFile(toBuffer(input.document.data), { fileName: input.document.fileName, mimeType: input.document.mimeType, folder: 'documents' });
    fields.document = store.documentOf(f);
  }
  if (media) fields.caption = text;
  else fields.text = text ?? '';
  return store.addMessage(chat, fields);
}

function refIds(ref: MessageRef): { chatId: number; messageId: number } {
  return { chatId: 'chat_id' in ref ? ref.chat_id : ref.chat.id, messageId: ref.message_id };
}

/** A button press on a message; `requireButton` demands a button carrying this callback_data. */
export function callbackQuery(
  store: TelegramStore,
  input: InjectCallbackInput,
  requireButton: boolean,
): { body: { callback_query: TgCallbackQuery }; record: CallbackRecord } {
  const { chatId, messageId } = refIds(input.message);
  const chat = store.chats.get(chatId);
  const msg = chat?.messages.get(messageId);
  if (!chat || !msg) throw new Error(`injectCallbackQuery: chat ${chatId} has no message ${messageId}`);
  if (requireButton && !buttonsOf(msg.reply_markup).some((b) => b.callback_data === input.data)) {
    throw new Error(`clickButton: message ${messageId} in chat ${chatId} has no button with callback_data ${JSON.stringify(input.data)}`);
  }
  const from = store.user(input.from ?? (chatId > 0 ? chatId : undefined));
  const record = store.newCallback({ chatId, messageId, data: input.data, from });
  const message: TgMessage = store.toWire(msg);
  return {
    body: { callback_query: { id: record.id, from: { ...from }, message, chat_instance: `ci${chatId}`, data: input.data } },
    record,
  };
}
