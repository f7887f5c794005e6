/**
 * The Telegram budgets a call draws from (platforms.md §3, §5), broadest first: the bot account (~30
 * messages/s), the chat (1/s, no burst), and for groups also the group's 20 messages/min.
 * Drafts have their own per-chat pacing; typing, reactions and deletes draw only on the account.
 * Keys are stable strings `telegram:<botId>:<bucket>[:<chat>]`, shared by every writer and poster.
 */
import type { RateLimit, RateOp, RateScope } from '../contract/rate';
import type { ThreadRef } from '../contract/thread-ref';
import { isPrivateChat, telegramTarget } from './thread';

export const TELEGRAM_RATES = {
  // 10% under Telegram's ~30/s: the governor counts a call when it leaves, Telegram when it arrives, so
  // network jitter can bunch a full-rate burst past the limit (seen as rare 429 storms at 1,000 chats).
  account: { count: 27, perMs: 1_000, burst: 27 },
  // no burst: two writes to one chat (a live edit and the final, a card) must never land inside a second
  chat: { count: 1, perMs: 1_000, burst: 1 },
  group: { count: 20, perMs: 60_000, burst: 20 },
  draft: { count: 2, perMs: 1_000, burst: 3 },
} satisfies Record<string, RateLimit>;

export function telegramRateScopes(botId: string, thread: ThreadRef, op: RateOp): RateScope[] {
  const chat = String(telegramTarget(thread).chatId);
  const scopes: RateScope[] = [{ key: `telegram:${botId}:bot`, limit: TELEGRAM_RATES.account, level: 'account' }];
  switch (op) {
    case 'typing':
    case 'reaction':
    case 'delete':
      return scopes;
    case 'draft':
      scopes.push({ key: `telegram:${botId}:draft:${chat}`, limit: TELEGRAM_RATES.draft, level: 'chat' });
      return scopes;
    default:
      if (!isPrivateChat(thread)) scopes.push({ key: `telegram:${botId}:group:${chat}`, limit: TELEGRAM_RATES.group, level: 'chat' });
      scopes.push({ key: `telegram:${botId}:chat:${chat}`, limit: TELEGRAM_RATES.chat, level: 'chat' });
      return scopes;
  }
}
