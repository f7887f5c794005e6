/**
 * updateToInbound: one Bot API Update → the gateway's neutral event, or undefined for updates the gateway
 * does not act on (edits, channel posts, service messages, inline-message buttons). Messages: DM ⇔ private
 * chat (always addressed); in groups, addressed by mention, /command or reply to the bot; forum topics set
 * `thread.topic`; photos and documents become attachments. Button presses become ActionEvents whose
 * `answer()` calls answerCallbackQuery once (later calls and "query is too old" are harmless).
 */
import type { InboundEvent } from '../contract/inbound-dispatcher';
import type { ActionAnswer, ActionEvent, ChatUser, InboundAttachment, InboundMessage } from '../contract/messages';
import type { TelegramThreadRef } from '../contract/thread-ref';
import { documentAttachment, photoAttachment, type DocumentLike, type FileDownloader, type PhotoSizeLike } from './attachments';
import { classifyTelegramError } from './errors';
import { addressing, type BotIdentity, type EntityLike } from './mentions';
import { telegramThread } from './thread';

/** The subset of Bot API objects this mapping reads (grammY's types satisfy it). */
export interface UserLike {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

export interface MessageLike {
  message_id: number;
  date: number;
  chat: { id: number; type: string };
  from?: UserLike;
  message_thread_id?: number;
  is_topic_message?: boolean;
  reply_to_message?: { message_id: number; from?: UserLike };
  text?: string;
  entities?: EntityLike[];
  caption?: string;
  caption_entities?: EntityLike[];
  photo?: PhotoSizeLike[];
  document?: DocumentLike;
}

export interface CallbackQueryLike {
  id: string;
  from: UserLike;
  message?: MessageLike;
  data?: string;
}

export interface UpdateLike {
  update_id: number;
  message?: MessageLike;
  callback_query?: CallbackQueryLike;
}

export interface InboundIo {
  downloadFile: FileDownloader;
  answerCallbackQuery(queryId: string, answer: { text?: string; show_alert?: boolean }): Promise<unknown>;
}

export type { InboundEvent } from '../contract/inbound-dispatcher';

/** answerCallbackQuery text limit. */
export const ANSWER_TEXT_MAX = 200;

function chatUser(u: UserLike): ChatUser {
  return { id: String(u.id), name: u.username ?? u.first_name, isBot: u.is_bot };
}

function threadOf(m: MessageLike): TelegramThreadRef {
  return telegramThread(m.chat.id, m.is_topic_message && m.message_thread_id !== undefined ? m.message_thread_id : null);
}

/** In forum topics every message "replies" to the topic's first message; only real replies count. */
function realReply(m: MessageLike): MessageLike['reply_to_message'] {
  const r = m.reply_to_message;
  if (!r) return undefined;
  if (m.is_topic_message && r.message_id === m.message_thread_id) return undefined;
  return r;
}

function attachmentsOf(m: MessageLike, io: InboundIo): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  const photo = m.photo ? photoAttachment(m.photo, io.downloadFile) : undefined;
  if (photo) out.push(photo);
  if (m.document) out.push(documentAttachment(m.document, io.downloadFile));
  return out;
}

function messageEvent(updateId: number, m: MessageLike, bot: BotIdentity, io: InboundIo): InboundMessage | undefined {
  if (!m.from) return undefined;
  const raw = m.text ?? m.caption ?? '';
  const entities = m.text !== undefined ? m.entities : m.caption_entities;
  const attachments = attachmentsOf(m, io);
  if (raw.trim() === '' && attachments.length === 0) return undefined;
  const isDM = m.chat.type === 'private';
  const addressed = addressing(raw, entities, bot);
  const reply = realReply(m);
  const thread = threadOf(m);
  return {
    platform: 'telegram',
    thread,
    user: chatUser(m.from),
    text: addressed.text,
    attachments,
    mentionsBot: isDM || addressed.mentioned || reply?.from?.id === bot.id,
    isDM,
    eventId: String(updateId),
    messageId: String(m.message_id),
    ...(reply ? { replyTo: { thread, messageId: String(reply.message_id) } } : {}),
    sentAt: m.date * 1000,
  };
}

/** Wraps answerCallbackQuery so it runs at most once and swallows errors classified `ignore`. */
export function answerOnce(queryId: string, io: InboundIo): (a?: ActionAnswer) => Promise<void> {
  let answered: Promise<void> | undefined;
  return (a) => {
    if (answered) return Promise.resolve();
    const params: { text?: string; show_alert?: boolean } = {};
    if (a?.text) params.text = [...a.text].length > ANSWER_TEXT_MAX ? `${[...a.text].slice(0, ANSWER_TEXT_MAX - 1).join('')}…` : a.text;
    if (a?.alert) params.show_alert = true;
    answered = io.answerCallbackQuery(queryId, params).then(
      () => undefined,
      (err: unknown) => {
        const e = classifyTelegramError(err);
        if (e.kind !== 'ignore') throw e;
      },
    );
    return answered;
  };
}

function actionEvent(updateId: number, q: CallbackQueryLike, io: InboundIo): ActionEvent | undefined {
  if (!q.message || q.data === undefined) return undefined;
  const thread = threadOf(q.message);
  return {
    platform: 'telegram',
    thread,
    user: chatUser(q.from),
    payload: q.data,
    message: { thread, messageId: String(q.message.message_id) },
    eventId: String(updateId),
    answer: answerOnce(q.id, io),
  };
}

export function updateToInbound(update: UpdateLike, bot: BotIdentity, io: InboundIo): InboundEvent | undefined {
  if (update.message) {
    const message = messageEvent(update.update_id, update.message, bot, io);
    return message ? { kind: 'message', message } : undefined;
  }
  if (update.callback_query) {
    const action = actionEvent(update.update_id, update.callback_query, io);
    return action ? { kind: 'action', action } : undefined;
  }
  return undefined;
}
