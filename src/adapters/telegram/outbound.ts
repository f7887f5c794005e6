/**
 * Outbound Bot API calls on neutral types: post (sendMessage), edit (editMessageText, always with the
 * keyboard, since an edit without reply_markup drops the buttons), delete, typing, reactions and draft
 * previews. Text is HTML from the Markdown (or the Markdown unformatted when `plain`); topics get
 * `message_thread_id` on every send. Every failure is thrown as a classified PlatformError.
 */
import type { Api } from 'grammy';
import type { ReactionTypeEmoji } from 'grammy/types';
import { PlatformError } from '../contract/errors';
import type { MessageRef } from '../contract/messages';
import type { OutboundContent } from '../contract/surface';
import type { ThreadRef } from '../contract/thread-ref';
import { classifyTelegramError } from './errors';
import { telegramDraftText, telegramText } from './format';
import { inlineKeyboard } from './keyboard';
import { telegramTarget } from './thread';

const NO_PREVIEW = { is_disabled: true } as const;

async function classified<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw classifyTelegramError(err);
  }
}

function messageIdOf(ref: MessageRef): number {
  const n = Number(ref.messageId);
  if (!/^\d+$/.test(ref.messageId) || !Number.isSafeInteger(n)) {
    throw new PlatformError('telegram', { kind: 'degrade', reason: 'gone' }, `"${ref.messageId}" is not a Telegram message id`);
  }
  return n;
}

export class TelegramOutbound {
  constructor(private readonly api: Api) {}

  async post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    const t = telegramTarget(thread);
    const body = telegramText(content);
    const sent = await classified(() =>
      this.api.sendMessage(t.chatId, body.text, {
        ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}),
        ...(t.threadId !== undefined ? { message_thread_id: t.threadId } : {}),
        reply_markup: inlineKeyboard(content.buttons),
        link_preview_options: NO_PREVIEW,
      }),
    );
    return { thread, messageId: String(sent.message_id) };
  }

  async edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    const t = telegramTarget(ref.thread);
    const id = messageIdOf(ref);
    const body = telegramText(content);
    await classified(() =>
      this.api.editMessageText(t.chatId, id, body.text, {
        ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}),
        reply_markup: inlineKeyboard(content.buttons),
        link_preview_options: NO_PREVIEW,
      }),
    );
  }

  async delete(ref: MessageRef): Promise<void> {
    const t = telegramTarget(ref.thread);
    const id = messageIdOf(ref);
    await classified(() => this.api.deleteMessage(t.chatId, id));
  }

  async typing(thread: ThreadRef): Promise<void> {
    const t = telegramTarget(thread);
    await classified(() => this.api.sendChatAction(t.chatId, 'typing', t.threadId !== undefined ? { message_thread_id: t.threadId } : {}));
  }

  async react(ref: MessageRef, emoji: string): Promise<void> {
    const t = telegramTarget(ref.thread);
    const id = messageIdOf(ref);
    const reaction: ReactionTypeEmoji = { type: 'emoji', emoji: emoji as ReactionTypeEmoji['emoji'] };
    await classified(() => this.api.setMessageReaction(t.chatId, id, [reaction]));
  }

  /** Replaces the private chat's draft preview `draftId` with `content`. */
  async draft(thread: ThreadRef, draftId: number, content: OutboundContent): Promise<void> {
    const t = telegramTarget(thread);
    if (typeof t.chatId !== 'number') {
      throw new PlatformError('telegram', { kind: 'degrade', reason: 'draft_unsupported' }, `drafts need a numeric private chat id, not ${t.chatId}`);
    }
    const chatId = t.chatId;
    const body = telegramDraftText(content);
    await classified(() =>
      this.api.sendMessageDraft(chatId, draftId, body.text, {
        ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}),
        ...(t.threadId !== undefined ? { message_thread_id: t.threadId } : {}),
      }),
    );
  }
}
