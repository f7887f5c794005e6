/**
 * Message methods of the fake Bot API: sendMessage, editMessageText, editMessageReplyMarkup,
 * deleteMessage(s), sendChatAction, sendMessageDraft, setMessageReaction, sendPhoto, sendDocument.
 * Order per call: parameters → chat (not found / bot blocked) → topic → text & markup validation →
 * target message → "not modified" → flood control → state change. Only accepted changes spend tokens.
 */
import * as z from 'zod';
import { tgErrors } from './telegram-errors';
import { formatCaption, formatDraftText, formatMessageText } from './telegram-format';
import { checkReplyMarkup, stableJson } from './telegram-markup';
import type { CallContext, MethodHandler, MethodWorld } from './telegram-method-types';
import { anyJson, bool, chatId, int, jsonArray, jsonOf, parseParams, str } from './telegram-params';
import type { StoredChat, StoredFile, StoredMessage } from './telegram-store';
import type { TgReaction } from './telegram-types';

const CHAT_ACTIONS = new Set([
  'typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document',
  'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note',
]);

const REACTION_EMOJI = new Set([
  '👍', '👎', '❤', '🔥', '🥰', '👏', '😁', '🤔', '🤯', '😱', '🤬', '😢', '🎉', '🤩', '🤮', '💩', '🙏', '👌', '🕊', '🤡',
  '🥱', '🥴', '😍', '🐳', '❤‍🔥', '🌚', '🌭', '💯', '🤣', '⚡', '🍌', '🏆', '💔', '🤨', '😐', '🍓', '🍾', '💋', '🖕', '😈',
  '😴', '😭', '🤓', '👻', '👨‍💻', '👀', '🎃', '🙈', '😇', '😨', '🤝', '✍', '🤗', '🫡', '🎅', '🎄', '☃', '💅', '🤪', '🗿',
  '🆒', '💘', '🙉', '🦄', '😘', '💊', '🙊', '😎', '👾', '🤷‍♂', '🤷', '🤷‍♀', '😡',
]);

const replyParameters = jsonOf(
  z.object({ message_id: int, chat_id: chatId.optional(), allow_sending_without_reply: bool.optional() }).loose(),
);

const sendMessageSchema = z.object({
  chat_id: chatId,
  text: str.optional(),
  parse_mode: str.optional(),
  entities: jsonArray.optional(),
  reply_markup: anyJson.optional(),
  message_thread_id: int.optional(),
  reply_parameters: replyParameters.optional(),
  reply_to_message_id: int.optional(),
  allow_sending_without_reply: bool.optional(),
});

const editTextSchema = z.object({
  chat_id: chatId.optional(),
  message_id: int.optional(),
  inline_message_id: str.optional(),
  text: str.optional(),
  parse_mode: str.optional(),
  entities: jsonArray.optional(),
  reply_markup: anyJson.optional(),
});

const editMarkupSchema = z.object({
  chat_id: chatId.optional(),
  message_id: int.optional(),
  inline_message_id: str.optional(),
  reply_markup: anyJson.optional(),
});

const deleteSchema = z.object({ chat_id: chatId, message_id: int });
const deleteManySchema = z.object({ chat_id: chatId, message_ids: jsonOf(z.array(int).min(1).max(100)) });
const actionSchema = z.object({ chat_id: chatId, action: str, message_thread_id: int.optional() });
const draftSchema = z.object({
  chat_id: chatId,
  draft_id: int,
  text: str.optional(),
  parse_mode: str.optional(),
  entities: jsonArray.optional(),
  message_thread_id: int.optional(),
});
const reactionSchema = z.object({
  chat_id: chatId,
  message_id: int,
  reaction: jsonOf(z.array(z.object({ type: z.string(), emoji: z.string().optional(), custom_emoji_id: z.string().optional() }))).optional(),
  is_big: bool.optional(),
});
const mediaSchema = z.object({
  chat_id: chatId,
  caption: str.optional(),
  parse_mode: str.optional(),
  caption_entities: jsonArray.optional(),
  reply_markup: anyJson.optional(),
  message_thread_id: int.optional(),
  reply_parameters: replyParameters.optional(),
  reply_to_message_id: int.optional(),
  allow_sending_without_reply: bool.optional(),
});

export function messageMethods(world: MethodWorld): Record<string, MethodHandler> {
  const { store } = world;

  const requireChat = (id: number | string | undefined): StoredChat => {
    if (id === undefined) throw tgErrors.badRequest('chat_id is empty');
    const chat = store.findChat(id);
    if (!chat) throw tgErrors.chatNotFound();
    if (chat.botBlocked) {
      if (chat.chat.type === 'private') throw tgErrors.blockedByUser();
      throw chat.chat.type === 'group' ? tgErrors.kickedFromGroup() : tgErrors.kickedFromSupergroup();
    }
    return chat;
  };

  const checkThread = (chat: StoredChat, threadId: number | undefined): void => {
    if (threadId !== undefined && chat.chat.is_forum && !chat.topics.has(threadId)) {
      throw tgErrors.badRequest('message thread not found');
    }
  };

  const replyTarget = (
    chat: StoredChat,
    p: { reply_parameters?: { message_id: number; allow_sending_without_reply?: boolean }; reply_to_message_id?: number; allow_sending_without_reply?: boolean },
  ): number | undefined => {
    const id = p.reply_parameters?.message_id ?? p.reply_to_message_id;
    if (id === undefined) return undefined;
    if (chat.messages.has(id)) return id;
    if (p.reply_parameters?.allow_sending_without_reply ?? p.allow_sending_without_reply) return undefined;
    throw tgErrors.badRequest('message to be replied not found');
  };

  const botMessage = (chat: StoredChat, messageId: number | undefined, notFound: () => Error): StoredMessage => {
    if (messageId === undefined) throw tgErrors.badRequest('message identifier is not specified');
    const msg = chat.messages.get(messageId);
    if (!msg) throw notFound();
    if (!msg.fromBot) throw tgErrors.badRequest("message can't be edited");
    return msg;
  };

  const topicFields = (chat: StoredChat, threadId: number | undefined): Partial<StoredMessage> =>
    threadId === undefined ? {} : chat.chat.is_forum ? { message_thread_id: threadId, is_topic_message: true } : { message_thread_id: threadId };

  const touchEdited = (msg: StoredMessage): void => {
    msg.editCount++;
    msg.edit_date = store.nowSeconds();
  };

  const inputFile = (value: unknown, field: string, call: CallContext, folder: string): StoredFile => {
    let upload = value === undefined ? call.files.get(field) : undefined;
    if (typeof value === 'string' && value.startsWith('attach://')) {
      upload = call.files.get(value.slice('attach://'.length));
      if (!upload) throw tgErrors.badRequest(`file "${value}" is not attached`);
    }
    if (upload) return store.registerFile(upload.data, { fileName: upload.fileName, mimeType: upload.contentType, folder });
    if (typeof value !== 'string' || value === '') throw tgErrors.badRequest(`there is no ${field} in the request`);
    if (/^https?:\/\//i.test(value)) throw tgErrors.badRequest('failed to get HTTP URL content');
    const known = store.files.get(value);
    if (!known) throw tgErrors.badRequest('wrong file identifier/HTTP URL specified');
    return known;
  };

  const sendMedia = (kind: 'photo' | 'document') => (params: Record<string, unknown>, call: CallContext) => {
    const p = parseParams(mediaSchema, params);
    const chat = requireChat(p.chat_id);
    checkThread(chat, p.message_thread_id);
    const caption = formatCaption(p.caption, p.parse_mode, p.caption_entities);
    const markup = checkReplyMarkup(p.reply_markup, false);
    const replyTo = replyTarget(chat, p);
    const file = inputFile(params[kind], kind, call, kind === 'photo' ? 'photos' : 'documents');
    world.admit(chat);
    chat.draft = undefined;
    const msg = store.addMessage(chat, {
      fromBot: true,
      from: store.bot,
      caption: caption?.text,
      entities: caption?.entities,
      parse_mode: p.parse_mode,
      source: p.caption,
      reply_markup: markup,
      reply_to_message_id: replyTo,
      ...topicFields(chat, p.message_thread_id),
      ...(kind === 'photo' ? { photo: store.photoSizes(file) } : { document: store.documentOf(file) }),
    });
    return store.toWire(msg);
  };

  return {
    sendMessage: (params) => {
      const p = parseParams(sendMessageSchema, params);
      const chat = requireChat(p.chat_id);
      checkThread(chat, p.message_thread_id);
      const f = formatMessageText(p.text, p.parse_mode, p.entities);
      const markup = checkReplyMarkup(p.reply_markup, false);
      const replyTo = replyTarget(chat, p);
      world.admit(chat);
      chat.draft = undefined;
      const msg = store.addMessage(chat, {
        fromBot: true,
        from: store.bot,
        text: f.text,
        entities: f.entities,
        parse_mode: p.parse_mode,
        source: p.text,
        reply_markup: markup,
        reply_to_message_id: replyTo,
        ...topicFields(chat, p.message_thread_id),
      });
      return store.toWire(msg);
    },

    editMessageText: (params) => {
      const p = parseParams(editTextSchema, params);
      if (p.inline_message_id !== undefined && p.chat_id === undefined) throw tgErrors.messageToEditNotFound();
      const chat = requireChat(p.chat_id);
      const f = formatMessageText(p.text, p.parse_mode, p.entities);
      const markup = checkReplyMarkup(p.reply_markup, true);
      const msg = botMessage(chat, p.message_id, tgErrors.messageToEditNotFound);
      if (msg.text === undefined) throw tgErrors.badRequest('there is no text in the message to edit');
      if (msg.text === f.text && stableJson(msg.entities) === stableJson(f.entities) && stableJson(msg.reply_markup) === stableJson(markup)) {
        throw tgErrors.notModified();
      }
      world.admit(chat);
      msg.text = f.text;
      msg.entities = f.entities;
      msg.parse_mode = p.parse_mode;
      msg.source = p.text;
      msg.reply_markup = markup;
      touchEdited(msg);
      return store.toWire(msg);
    },

    editMessageReplyMarkup: (params) => {
      const p = parseParams(editMarkupSchema, params);
      if (p.inline_message_id !== undefined && p.chat_id === undefined) throw tgErrors.messageToEditNotFound();
      const chat = requireChat(p.chat_id);
      const markup = checkReplyMarkup(p.reply_markup, true);
      const msg = botMessage(chat, p.message_id, tgErrors.messageToEditNotFound);
      if (stableJson(msg.reply_markup) === stableJson(markup)) throw tgErrors.notModified();
      world.admit(chat);
      msg.reply_markup = markup;
      touchEdited(msg);
      return store.toWire(msg);
    },

    deleteMessage: (params) => {
      const p = parseParams(deleteSchema, params);
      const chat = requireChat(p.chat_id);
      if (!chat.messages.delete(p.message_id)) throw tgErrors.messageToDeleteNotFound();
      chat.deletedCount++;
      return true;
    },

    deleteMessages: (params) => {
      const p = parseParams(deleteManySchema, params);
      const chat = requireChat(p.chat_id);
      for (const id of p.message_ids) if (chat.messages.delete(id)) chat.deletedCount++;
      return true;
    },

    sendChatAction: (params) => {
      const p = parseParams(actionSchema, params);
      const chat = requireChat(p.chat_id);
      if (!CHAT_ACTIONS.has(p.action)) throw tgErrors.badRequest('wrong parameter action in request');
      checkThread(chat, p.message_thread_id);
      chat.actions.push(p.message_thread_id === undefined ? { action: p.action, at: world.clock.now() } : { action: p.action, at: world.clock.now(), message_thread_id: p.message_thread_id });
      return true;
    },

    sendMessageDraft: (params) => {
      const p = parseParams(draftSchema, params);
      const chat = requireChat(p.chat_id);
      if (chat.chat.type !== 'private') throw tgErrors.badRequest('TEXTDRAFT_PEER_INVALID');
      if (p.draft_id === 0) throw tgErrors.badRequest('draft_id must be non-zero');
      const f = formatDraftText(p.text, p.parse_mode, p.entities);
      const now = world.clock.now();
      const live = chat.draft && chat.draft.draft_id === p.draft_id && now - chat.draft.lastAt <= world.draftLifetimeMs;
      chat.draft = {
        draft_id: p.draft_id,
        text: f.text,
        entities: f.entities,
        parse_mode: p.parse_mode,
        message_thread_id: p.message_thread_id,
        updates: live ? chat.draft!.updates + 1 : 1,
        lastAt: now,
      };
      chat.draftUpdates++;
      return true;
    },

    setMessageReaction: (params) => {
      const p = parseParams(reactionSchema, params);
      const chat = requireChat(p.chat_id);
      const msg = chat.messages.get(p.message_id);
      if (!msg) throw tgErrors.badRequest('message to react not found');
      const reactions: TgReaction[] = [];
      for (const r of p.reaction ?? []) {
        if (r.type === 'emoji' && r.emoji !== undefined && REACTION_EMOJI.has(r.emoji)) reactions.push({ type: 'emoji', emoji: r.emoji });
        else if (r.type === 'custom_emoji' && r.custom_emoji_id) reactions.push({ type: 'custom_emoji', custom_emoji_id: r.custom_emoji_id });
        else if (r.type === 'paid') reactions.push({ type: 'paid' });
        else throw tgErrors.badRequest('REACTION_INVALID');
      }
      if (reactions.length > 1) throw tgErrors.badRequest('REACTIONS_TOO_MUCH');
      msg.reactions = reactions;
      return true;
    },

    sendPhoto: sendMedia('photo'),
    sendDocument: sendMedia('document'),
  };
}
