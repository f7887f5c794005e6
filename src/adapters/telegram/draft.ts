/**
 * Native draft streaming for private chats (`sendMessageDraft`, Bot API 9.3+): each live reply gets its
 * own block of draft ids (one per message part, so a rolled-over part starts a fresh preview), and a chat
 * whose drafts Telegram rejected is remembered so later replies go straight to send + edit there.
 */
import type { Clock } from '../contract/clock';
import type { DraftStream } from '../contract/surface';
import { bindingKey, type ThreadRef } from '../contract/thread-ref';
import { classifyTelegramError } from './errors';
import type { TelegramOutbound } from './outbound';
import { isPrivateChat } from './thread';

/** Draft ids a reply may use (parts 0…BLOCK-1). */
export const DRAFT_ID_BLOCK = 1024;
const MAX_BASE = 2 ** 31 - DRAFT_ID_BLOCK;

export class DraftStreams {
  private next: number;
  private readonly unsupported = new Set<string>();

  constructor(private readonly outbound: TelegramOutbound, clock: Clock) {
    // start somewhere new after a restart, so a fresh reply never animates a preview left by the last process
    this.next = 1 + (Math.floor(clock.now() / 1000) % Math.floor(MAX_BASE / DRAFT_ID_BLOCK)) * DRAFT_ID_BLOCK;
  }

  /** A draft stream for this conversation, or undefined where drafts cannot be used. */
  streamFor(thread: ThreadRef): DraftStream | undefined {
    if (!isPrivateChat(thread)) return undefined;
    const key = bindingKey(thread);
    if (this.unsupported.has(key)) return undefined;
    const base = this.next;
    this.next = this.next + DRAFT_ID_BLOCK > MAX_BASE ? 1 : this.next + DRAFT_ID_BLOCK;
    return {
      kind: 'draft',
      draft: async (content) => {
        try {
          await this.outbound.draft(thread, base + (content.part % DRAFT_ID_BLOCK), content);
        } catch (err) {
          const e = classifyTelegramError(err);
          if (e.classification.kind === 'degrade' && e.classification.reason === 'draft_unsupported') this.unsupported.add(key);
          throw e;
        }
      },
    };
  }
}
