/**
 * MessageSurface: the few calls the platform-free writer needs from an adapter for one conversation —
 * post / edit / delete (returning platform message ids, throwing PlatformError), the rate scopes of each
 * call, and optionally a native streaming mode (Telegram drafts replace a preview; Slack streams append).
 * `OutboundContent` is what every call carries: Markdown text (the adapter formats it) whose answer part
 * is embedded verbatim at `answerOffset`, so delivery can be verified without trusting the writer's bookkeeping.
 */
import type { ApprovalCard, CardState } from './approval-card';
import type { RateOp, RateScope } from './rate';

export interface ButtonSpec {
  label: string;
  /** Encoded action payload (see action-payload.ts). */
  payload: string;
  style?: 'primary' | 'danger' | 'secondary';
}

export interface OutboundContent {
  /** Markdown to show; the adapter renders it to the platform format (or sends it as-is when `plain`). */
  text: string;
  /** Tool lines at the top of the first message ('' elsewhere); part of `text`. */
  header: string;
  /** The live status line at the top of the last message while the Task runs; part of `text` in post/edit modes. */
  status?: string;
  /** The slice of the assistant answer this message carries; `text.slice(answerOffset, answerOffset + answer.length) === answer`. */
  answer: string;
  answerOffset: number;
  /** Buttons under the message (e.g. Stop); resent with every edit. */
  buttons?: ButtonSpec[];
  /**
   * Set when the message is an approval card: the structured card `text` renders, so a platform with rich
   * layouts (Slack Block Kit) can lay it out natively; others show `text` and `buttons`.
   */
  card?: { card: ApprovalCard; state: CardState };
  /** Send without formatting (after the platform rejected the formatted version). */
  plain: boolean;
  /** The last content this message will get (render fully; intermediate edits may be rendered leniently). */
  final: boolean;
  /** Position of this message in the reply (0 = first); drafts use it to keep one preview per part. */
  part: number;
}

/** Telegram-style preview: each call replaces the preview; the real message is posted at the end. */
export interface DraftStream {
  kind: 'draft';
  draft(content: OutboundContent): Promise<void>;
}

/** Slack-style stream: a message that only grows; `stop` settles it with its final content. */
export interface AppendStream {
  kind: 'append';
  /** Starts a streamed message showing `content`; returns its message id. */
  start(content: OutboundContent): Promise<string>;
  /** Appends `delta` (Markdown) to the streamed text; `content` is the full new state (e.g. for a status chunk). */
  append(messageId: string, delta: string, content: OutboundContent): Promise<void>;
  /**
   * Settles the message so it shows exactly `content` (not just what was appended: an append retried after
   * a lost response may have landed twice, so adapters replace the text here, e.g. stopStream + chat.update).
   */
  stop(messageId: string, content: OutboundContent): Promise<void>;
}

export type NativeStream = DraftStream | AppendStream;

export interface MessageSurface {
  post(content: OutboundContent): Promise<string>;
  edit(messageId: string, content: OutboundContent): Promise<void>;
  delete(messageId: string): Promise<void>;
  /** Buckets a call draws from (broadest first). */
  scopes(op: RateOp): RateScope[];
  /** Present when the platform can stream natively for this conversation. */
  native?: NativeStream;
  /** Length of Markdown once rendered, as the platform counts it (the writer splits by it). */
  measure?: (markdown: string) => number;
}
