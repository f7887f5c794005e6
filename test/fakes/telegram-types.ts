/**
 * Wire shapes the fake Telegram Bot API server sends and receives, kept to the fields the fake fills in.
 * They mirror Bot API objects (User, Chat, Message, MessageEntity, InlineKeyboardMarkup, CallbackQuery,
 * File, Update) field for field, so a grammY bot reads them as it would read the real service's JSON.
 */

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TgChat {
  id: number;
  type: ChatType;
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
  is_forum?: true;
}

export interface TgEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  user?: TgUser;
  language?: string;
  custom_emoji_id?: string;
}

export interface TgInlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  style?: string;
  [field: string]: unknown;
}

export interface TgInlineKeyboard {
  inline_keyboard: TgInlineButton[][];
}

/** Any reply_markup: an inline keyboard, or a reply keyboard / removal / force-reply object kept as sent. */
export type TgReplyMarkup = TgInlineKeyboard | Record<string, unknown>;

export interface TgPhotoSize {
  file_id: string;
  file_unique_id: string;
  width: number;
  height: number;
  file_size?: number;
}

export interface TgDocument {
  file_id: string;
  file_unique_id: string;
  file_name?: string;
  mime_type?: string;
  file_size?: number;
}

export interface TgFile {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
  file_path?: string;
}

export interface TgReaction {
  type: 'emoji' | 'custom_emoji' | 'paid';
  emoji?: string;
  custom_emoji_id?: string;
}

export interface TgMessage {
  message_id: number;
  message_thread_id?: number;
  from?: TgUser;
  chat: TgChat;
  date: number;
  edit_date?: number;
  is_topic_message?: true;
  reply_to_message?: TgMessage;
  text?: string;
  entities?: TgEntity[];
  caption?: string;
  caption_entities?: TgEntity[];
  photo?: TgPhotoSize[];
  document?: TgDocument;
  reply_markup?: TgReplyMarkup;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  chat_instance: string;
  data?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
  callback_query?: TgCallbackQuery;
  [kind: string]: unknown;
}

export interface TgBotCommand {
  command: string;
  description: string;
}

/** The fakes' shared time source, re-exported so platform code imports its types from one place. */
export { realClock, type FakeClock } from './server-clock';
