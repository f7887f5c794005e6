/**
 * Telegram conversations as ThreadRefs (binding key `telegram:<chat>:<topic|->`) and back to what the Bot
 * API needs: `chat_id` (numeric ids as numbers, `@channel` names as strings) and `message_thread_id` for
 * forum topics. Private chats have positive ids; groups, supergroups and channels negative ones. A ref of
 * another platform, or a topic that is not a number, throws a surfaced PlatformError.
 */
import { PlatformError } from '../contract/errors';
import type { ThreadPlace } from '../contract/place';
import type { TelegramThreadRef, ThreadRef } from '../contract/thread-ref';

export interface TelegramTarget {
  chatId: number | string;
  /** Forum topic; absent outside topics. */
  threadId?: number;
}

export function telegramThread(chatId: number | string, topic?: number | null): TelegramThreadRef {
  return { platform: 'telegram', chat: String(chatId), topic: topic === undefined || topic === null ? null : String(topic) };
}

/** A thread the adapter cannot address is a caller's mistake: surfaced, never retried. */
function badTarget(message: string): PlatformError {
  return new PlatformError('telegram', { kind: 'surface', reason: 'invalid_request' }, message);
}

function asTelegramRef(ref: ThreadRef): TelegramThreadRef {
  if (ref.platform !== 'telegram') throw badTarget(`the Telegram adapter cannot address a ${ref.platform} conversation`);
  return ref;
}

/** A numeric id string as a number when it reads back identically; anything else stays a string. */
function idValue(s: string): number | string {
  if (!/^-?\d+$/.test(s)) return s;
  const n = Number(s);
  return Number.isSafeInteger(n) && String(n) === s ? n : s;
}

export function telegramTarget(ref: ThreadRef): TelegramTarget {
  const t = asTelegramRef(ref);
  const chatId = idValue(t.chat);
  if (t.topic === null) return { chatId };
  const topic = idValue(t.topic);
  if (typeof topic !== 'number') throw badTarget(`Telegram topic id ${JSON.stringify(t.topic)} is not a number`);
  return { chatId, threadId: topic };
}

/** The inverse of `telegramTarget`. */
export function threadOfTarget(target: TelegramTarget): TelegramThreadRef {
  return telegramThread(target.chatId, target.threadId ?? null);
}

/** Private chats (one user and the bot) have positive numeric ids. */
export function isPrivateChat(ref: ThreadRef): boolean {
  return /^\d+$/.test(asTelegramRef(ref).chat);
}

/** A chat is its own route scope, access channel and (unless private) group; topics share their chat's workspace. */
export function telegramPlace(ref: ThreadRef): ThreadPlace {
  const chat = ref.platform === 'telegram' ? ref.chat : '';
  const direct = /^\d+$/.test(chat);
  return { platform: 'telegram', scope: { chat }, channel: chat, ...(direct ? {} : { group: chat }), direct, workspaceKey: chat };
}
