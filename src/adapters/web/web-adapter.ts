/**
 * WebAdapter: the in-process chat platform behind the dashboard playground (gateway.md §8, §10). It keeps
 * each conversation's messages in memory (the last 500), turns `send()` / `click()` from the HTTP layer
 * into InboundMessage / ActionEvent for the gateway, and publishes every post, edit, delete, typing
 * indicator and action answer as a WebEvent for SSE subscribers. Lets the whole flow run with no chat platform.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ChannelAdapter } from '../contract/adapter';
import { PlatformError, isPlatformError, thrownMessage } from '../contract/errors';
import type { StreamingSettings } from '../contract/binding';
import { WEB_LIMITS, pacedLimits, type PlatformLimits } from '../contract/limits';
import type { ThreadPlace } from '../contract/place';
import type { ActionAnswer, ChatUser, InboundHandler, MessageRef } from '../contract/messages';
import type { RateOp, RateScope } from '../contract/rate';
import type { ButtonSpec, OutboundContent } from '../contract/surface';
import type { ThreadRef, WebThreadRef } from '../contract/thread-ref';

export const WEB_HISTORY_LIMIT = 500;

export interface WebMessage {
  id: string;
  author: 'bot' | 'user';
  user?: ChatUser;
  /** Markdown as the gateway wrote it. */
  text: string;
  buttons: ButtonSpec[];
  final: boolean;
  edits: number;
  createdAt: number;
  updatedAt: number;
}

export type WebEvent =
  | { type: 'message' | 'edit'; conversation: string; message: WebMessage }
  | { type: 'delete'; conversation: string; messageId: string }
  | { type: 'typing'; conversation: string }
  | { type: 'reaction'; conversation: string; messageId: string; emoji: string }
  | { type: 'answer'; conversation: string; userId: string; text: string };

export class WebConversationError extends Error {
  constructor(readonly code: 'not_found' | 'bad_button' | 'not_started', message: string) {
    super(message);
    this.name = 'WebConversationError';
  }
}

const asWeb = (t: ThreadRef): WebThreadRef => {
  if (t.platform !== 'web') throw new PlatformError('web', { kind: 'surface', reason: 'invalid_request' }, `not a web conversation: ${t.platform}`);
  return t;
};

export interface WebAdapterOptions {
  now?: () => number;
  /** Edit and typing pacing from the gateway config; absent = WEB_LIMITS. */
  streaming?: StreamingSettings;
}

export class WebAdapter implements ChannelAdapter {
  readonly platform = 'web' as const;
  readonly limits: PlatformLimits;
  private handler?: InboundHandler;
  private readonly conversations = new Map<string, Map<string, WebMessage>>();
  private readonly events = new EventEmitter();
  private readonly now: () => number;
  private seq = 0;

  constructor(o: WebAdapterOptions = {}) {
    this.now = o.now ?? Date.now;
    this.limits = o.streaming ? pacedLimits(WEB_LIMITS, o.streaming) : WEB_LIMITS;
    this.events.setMaxListeners(0);
  }

  async start(handler: InboundHandler): Promise<void> {
    if (this.handler) throw new Error('the web adapter is already running');
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.handler = undefined;
  }

  /** Every playground conversation is one operator talking to the bot. */
  place(thread: ThreadRef): ThreadPlace {
    const conversation = thread.platform === 'web' ? thread.conversation : '';
    return { platform: 'web', scope: {}, channel: conversation, direct: true, workspaceKey: conversation };
  }

  async post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    const conv = asWeb(thread).conversation;
    const message = this.add(conv, { author: 'bot', text: content.text, buttons: content.buttons ?? [], final: content.final });
    return { thread, messageId: message.id };
  }

  async edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    const conv = asWeb(ref.thread).conversation;
    const m = this.conversations.get(conv)?.get(ref.messageId);
    if (!m) throw new PlatformError('web', { kind: 'degrade', reason: 'gone' }, `message ${ref.messageId} not found`);
    m.text = content.text;
    m.buttons = content.buttons ?? [];
    m.final = content.final;
    m.edits += 1;
    m.updatedAt = this.now();
    this.emit({ type: 'edit', conversation: conv, message: { ...m } });
  }

  async delete(ref: MessageRef): Promise<void> {
    const conv = asWeb(ref.thread).conversation;
    if (this.conversations.get(conv)?.delete(ref.messageId)) this.emit({ type: 'delete', conversation: conv, messageId: ref.messageId });
  }

  rateScopes(thread: ThreadRef, _op: RateOp): RateScope[] {
    return [{ key: `web:${asWeb(thread).conversation}`, limit: { count: 20, perMs: 1000, burst: 20 }, level: 'chat' }];
  }

  classify(err: unknown): PlatformError {
    return isPlatformError(err) ? err : new PlatformError('web', { kind: 'retry' }, thrownMessage(err), { cause: err });
  }

  async typing(thread: ThreadRef): Promise<void> {
    this.emit({ type: 'typing', conversation: asWeb(thread).conversation });
  }

  async react(ref: MessageRef, emoji: string): Promise<void> {
    this.emit({ type: 'reaction', conversation: asWeb(ref.thread).conversation, messageId: ref.messageId, emoji });
  }

  // ------------------------------------------------------------ the playground's side
  /** A user message into a conversation; resolves once the gateway has taken it. */
  async send(conversation: string, user: ChatUser, text: string): Promise<WebMessage> {
    const handler = this.handler;
    if (!handler) throw new WebConversationError('not_started', 'the web adapter is not running');
    const message = this.add(conversation, { author: 'user', user, text, buttons: [], final: true });
    await handler.onMessage({
      platform: 'web',
      thread: { platform: 'web', conversation },
      user,
      text,
      attachments: [],
      mentionsBot: true,
      isDM: true,
      eventId: `web-${message.id}-${randomBytes(4).toString('hex')}`,
      messageId: message.id,
      sentAt: message.createdAt,
    });
    return message;
  }

  /** A button press on a bot message; resolves with the answer the gateway gave the clicker. */
  async click(conversation: string, messageId: string, payload: string, user: ChatUser): Promise<ActionAnswer> {
    const handler = this.handler;
    if (!handler) throw new WebConversationError('not_started', 'the web adapter is not running');
    const m = this.conversations.get(conversation)?.get(messageId);
    if (!m) throw new WebConversationError('not_found', `no message ${messageId} in conversation ${conversation}`);
    if (!m.buttons.some((b) => b.payload === payload)) throw new WebConversationError('bad_button', `message ${messageId} has no such button`);
    let answer: ActionAnswer = {};
    let answered = false;
    await handler.onAction({
      platform: 'web',
      thread: { platform: 'web', conversation },
      user,
      payload,
      message: { thread: { platform: 'web', conversation }, messageId },
      eventId: `web-click-${randomBytes(6).toString('hex')}`,
      answer: async (a) => {
        if (answered) return;
        answered = true;
        answer = a ?? {};
        if (a?.text) this.emit({ type: 'answer', conversation, userId: user.id, text: a.text });
      },
    });
    return answer;
  }

  messages(conversation: string): WebMessage[] {
    return [...(this.conversations.get(conversation)?.values() ?? [])].map((m) => ({ ...m }));
  }

  /** Every event of one conversation; returns the unsubscribe function. */
  subscribe(conversation: string, listener: (e: WebEvent) => void): () => void {
    const name = `c:${conversation}`;
    this.events.on(name, listener);
    return () => this.events.off(name, listener);
  }

  private add(conversation: string, m: Omit<WebMessage, 'id' | 'edits' | 'createdAt' | 'updatedAt'>): WebMessage {
    let conv = this.conversations.get(conversation);
    if (!conv) {
      conv = new Map();
      this.conversations.set(conversation, conv);
    }
    const at = this.now();
    const message: WebMessage = { ...m, id: `m${++this.seq}`, edits: 0, createdAt: at, updatedAt: at };
    conv.set(message.id, message);
    if (conv.size > WEB_HISTORY_LIMIT) conv.delete(conv.keys().next().value as string);
    this.emit({ type: 'message', conversation, message: { ...message } });
    return message;
  }

  private emit(e: WebEvent): void {
    this.events.emit(`c:${e.conversation}`, e);
  }
}
