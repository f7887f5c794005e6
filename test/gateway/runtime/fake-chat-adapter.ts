/**
 * A recording ChannelAdapter posing as Telegram for gateway runtime tests: the test injects raw inbound
 * messages and clicks (including exact redeliveries) and reads what the gateway posted and edited.
 */
import type { AdapterHealth, ChannelAdapter } from '../../../src/adapters/contract/adapter';
import { PlatformError, isPlatformError } from '../../../src/adapters/contract/errors';
import { TELEGRAM_LIMITS } from '../../../src/adapters/contract/limits';
import type { ActionAnswer, ChatUser, InboundHandler, InboundMessage, MessageRef } from '../../../src/adapters/contract/messages';
import type { RateScope } from '../../../src/adapters/contract/rate';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import { bindingKey, type ThreadRef } from '../../../src/adapters/contract/thread-ref';
import { telegramPlace } from '../../../src/adapters/telegram/thread';

export interface Posted {
  id: string;
  chat: string;
  content: OutboundContent;
  edits: number;
}

export class FakeChatAdapter implements ChannelAdapter {
  readonly platform = 'telegram' as const;
  readonly limits = { ...TELEGRAM_LIMITS, minEditIntervalMs: { dm: 50, group: 50 } };

  place(thread: ThreadRef) {
    return telegramPlace(thread);
  }
  handler?: InboundHandler;
  readonly posted: Posted[] = [];
  readonly reactions: { messageId: string; emoji: string }[] = [];
  readonly typings: string[] = [];
  /** Conversation titles the gateway gave (setTitle). */
  readonly titles: { chat: string; title: string }[] = [];
  private seq = 0;
  /** When set, every post and edit fails with this error (e.g. the user blocked the bot). */
  failWith?: PlatformError;
  /** What `health()` answers (the liveness canary), when set. */
  healthNow?: AdapterHealth;

  health(): AdapterHealth {
    return this.healthNow ?? { state: 'connected' };
  }

  async setTitle(thread: ThreadRef, title: string): Promise<void> {
    this.titles.push({ chat: bindingKey(thread), title });
  }

  async start(h: InboundHandler): Promise<void> {
    this.handler = h;
  }
  async stop(): Promise<void> {
    this.handler = undefined;
  }
  async post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    if (this.failWith) throw this.failWith;
    const id = String(++this.seq);
    this.posted.push({ id, chat: bindingKey(thread), content, edits: 0 });
    return { thread, messageId: id };
  }
  async edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    if (this.failWith) throw this.failWith;
    const p = this.posted.find((x) => x.id === ref.messageId);
    if (!p) throw new PlatformError('telegram', { kind: 'degrade', reason: 'gone' }, 'message to edit not found');
    p.content = content;
    p.edits++;
  }
  async delete(): Promise<void> {}
  rateScopes(thread: ThreadRef): RateScope[] {
    return [{ key: `fake:${bindingKey(thread)}`, limit: { count: 100, perMs: 1000, burst: 100 }, level: 'chat' }];
  }
  classify(e: unknown): PlatformError {
    return isPlatformError(e) ? e : new PlatformError('telegram', { kind: 'retry' }, String(e));
  }
  async typing(thread: ThreadRef): Promise<void> {
    this.typings.push(bindingKey(thread));
  }
  async react(ref: MessageRef, emoji: string): Promise<void> {
    this.reactions.push({ messageId: ref.messageId, emoji });
  }

  dm(user: ChatUser, text: string, eventId: string, messageId = eventId): InboundMessage {
    return { platform: 'telegram', thread: { platform: 'telegram', chat: user.id, topic: null }, user, text, attachments: [], mentionsBot: true, isDM: true, eventId, messageId, sentAt: Date.now() };
  }

  /** A message in a group chat (`chat` a negative Telegram id) that mentions the bot. */
  group(chat: string, user: ChatUser, text: string, eventId: string, messageId = eventId): InboundMessage {
    return { platform: 'telegram', thread: { platform: 'telegram', chat, topic: null }, user, text, attachments: [], mentionsBot: true, isDM: false, eventId, messageId, sentAt: Date.now() };
  }

  async inject(m: InboundMessage): Promise<void> {
    await this.handler!.onMessage(m);
  }

  async click(user: ChatUser, chat: string, messageId: string, payload: string, eventId: string): Promise<ActionAnswer> {
    let answer: ActionAnswer = {};
    const thread: ThreadRef = { platform: 'telegram', chat, topic: null };
    await this.handler!.onAction({ platform: 'telegram', thread, user, payload, message: { thread, messageId }, eventId, answer: async (a) => { answer = a ?? {}; } });
    return answer;
  }

  /** Texts of finished messages in a chat: final content and no buttons left (no Stop, no Allow). */
  finalsIn(chat: string): string[] {
    return this.posted.filter((p) => p.chat === `telegram:${chat}:-` && p.content.final && !p.content.buttons?.length).map((p) => p.content.text);
  }

  textsIn(chat: string): string[] {
    return this.posted.filter((p) => p.chat === `telegram:${chat}:-`).map((p) => p.content.text);
  }
}
