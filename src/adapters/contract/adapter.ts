/**
 * ChannelAdapter: what each chat platform (Slack, Discord, Telegram, web) implements, designed against all
 * three platforms' facts. Lifecycle (start with the gateway's inbound handler, stop), the platform's
 * knowledge of its threads (`place`), outbound calls on neutral types (post / edit / delete, optional
 * typing, reactions, ephemeral notices, native streaming), declared limits and rate scopes, and one error
 * classifier; nothing but PlatformError leaves a call. `surfaceFor` adapts it to a MessageSurface.
 */
import type { DeliveryTarget } from './delivery-target';
import type { ErrorClassifier } from './errors';
import type { PlatformLimits } from './limits';
import type { ActionEvent, InboundHandler, InboundMessage, MessageRef } from './messages';
import type { RateOp, RateScope } from './rate';
import type { ThreadPlace } from './place';
import type { MessageSurface, NativeStream, OutboundContent } from './surface';
import type { Platform, ThreadRef } from './thread-ref';

/** What an adapter knows about its connection now: the liveness canary behind /readyz and /metrics. */
export interface AdapterHealth {
  state: 'connected' | 'reconnecting' | 'failed';
  /** Why it is not connected, or what share of a split connection it runs, for the operator (never a credential). */
  detail?: string;
  /** Epoch ms of the last sign of life from the platform (an event, a poll answer, a heartbeat ACK). */
  lastEventAt?: number;
}

export interface ChannelAdapter {
  readonly platform: Platform;
  readonly limits: PlatformLimits;
  /** Connect and start delivering events to `handler`; resolves once connected (rejects on bad credentials). */
  start(handler: InboundHandler): Promise<void>;
  /** Stop taking events and close connections; idempotent. */
  stop(): Promise<void>;
  /** Where a thread of this platform lives (route scope, channel, group, directness); pure, never throws. */
  place(thread: ThreadRef): ThreadPlace;
  /**
   * The connection as the adapter sees it after start: a connection that went silent or a poll loop that
   * ended is `reconnecting` while the adapter re-opens it, `failed` when it gave up. Absent = always fine.
   */
  health?(): AdapterHealth;

  post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef>;
  edit(ref: MessageRef, content: OutboundContent): Promise<void>;
  delete(ref: MessageRef): Promise<void>;
  /** Buckets a call on `thread` draws from (broadest first), for the shared rate governor. */
  rateScopes(thread: ThreadRef, op: RateOp): RateScope[];
  /** Maps any error from this adapter's SDK to a classified PlatformError. */
  classify: ErrorClassifier;
  /** Length of Markdown once this adapter renders it, in `limits.lengthUnit` (e.g. via its Formatter). */
  measure?(markdown: string): number;

  /** Show "typing…" once; the caller renews every `limits.typingRenewMs`. */
  typing?(thread: ThreadRef): Promise<void>;
  react?(ref: MessageRef, emoji: string): Promise<void>;
  /** A notice only `userId` sees (Slack ephemeral, Discord interaction reply); absent where impossible. */
  ephemeral?(thread: ThreadRef, userId: string, text: string): Promise<void>;
  /** Native streaming for this conversation, when the platform, the chat type and the adapter's config allow it. */
  nativeStream?(thread: ThreadRef, isDM: boolean): NativeStream | undefined;
  /** Names the conversation where the platform shows a title (Slack assistant threads); best-effort, a no-op elsewhere. */
  setTitle?(thread: ThreadRef, title: string): Promise<void>;
  /**
   * Opens a new conversation in a channel (a scheduled run delivered to `slack:<team>:<channel>` or
   * `discord:<guild>:<channel>`): posts `content` as its first message and returns that message, whose
   * `thread` is where the conversation continues. Only platforms with channel targets need it.
   */
  startConversation?(target: DeliveryTarget, content: OutboundContent): Promise<MessageRef>;
  /** Buckets `startConversation` on `target` draws from (broadest first), for the rate governor; never throws. Absent = none. */
  startConversationScopes?(target: DeliveryTarget): RateScope[];
  /**
   * Why a delivery to `target` cannot work, from what the adapter already knows (no platform call): e.g. a
   * Slack target in another workspace. Undefined when nothing is known to be wrong; never throws.
   */
  deliveryProblem?(target: DeliveryTarget): string | undefined;
  /**
   * An event another gateway instance received for a conversation this one owns, about to be handled here:
   * note what the adapter notes from its own events (e.g. whom Slack's native stream answers). Never throws.
   */
  received?(event: InboundMessage | ActionEvent): void;
}

/** The writer's view of one conversation on an adapter. */
export function surfaceFor(adapter: ChannelAdapter, thread: ThreadRef, opts: { isDM: boolean } = { isDM: false }): MessageSurface {
  const native = adapter.nativeStream?.(thread, opts.isDM);
  return {
    post: async (content) => (await adapter.post(thread, content)).messageId,
    edit: (messageId, content) => adapter.edit({ thread, messageId }, content),
    delete: (messageId) => adapter.delete({ thread, messageId }),
    scopes: (op) => adapter.rateScopes(thread, op),
    ...(native ? { native } : {}),
    ...(adapter.measure ? { measure: (md: string) => adapter.measure!(md) } : {}),
  };
}
