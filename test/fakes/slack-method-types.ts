/**
 * The contract between the fake Slack server and its Web API method handlers: a handler gets the
 * call's arguments (raw, as sent), its uploaded parts and which token authorised it, and returns the
 * fields of the `ok:true` answer or throws a SlackApiError. `SlackWorld` is the slice of server state
 * and policy the handlers share (conversation access checks, limits, URLs, change notification).
 */
import type { BlockLimits } from './slack-blocks';
import type { UploadedFile } from './multipart-form';
import type { SlackStore } from './slack-store';
import type { FakeClock, StoredChannel, StoredMessage } from './slack-types';

export interface MethodCall {
  params: Record<string, unknown>;
  files: Map<string, UploadedFile>;
  auth: { kind: 'bot' | 'app'; token: string };
}

export type SlackMethodHandler = (call: MethodCall) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface MethodSpec {
  run: SlackMethodHandler;
  /** Which token type the method accepts (others get not_allowed_token_type). */
  token: 'bot' | 'app' | 'any';
  /** The call passes when the token has any of these scopes; `needed` in missing_scope names the first. */
  scopes: string[];
}

export interface MessageLimits {
  /** `text` longer than this is truncated with the `message_truncated` warning (postMessage, postEphemeral). */
  textTruncateAt: number;
  /** chat.update text longer than this is refused with msg_too_long. */
  updateTextMax: number;
  /** `markdown_text` (post, update, stream append) longer than this is refused with msg_too_long. */
  markdownTextMax: number;
}

export const DEFAULT_MESSAGE_LIMITS: MessageLimits = { textTruncateAt: 40_000, updateTextMax: 40_000, markdownTextMax: 12_000 };

export interface SlackWorld {
  readonly store: SlackStore;
  readonly clock: FakeClock;
  readonly blockLimits: BlockLimits;
  readonly messageLimits: MessageLimits;
  readonly scopes: ReadonlySet<string>;
  /** A conversation the bot may post in: channel_not_found / not_in_channel / is_archived as Slack answers. */
  postable(ref: string | undefined): StoredChannel;
  /** A conversation the bot may read (conversations.info, reactions): channel_not_found otherwise. */
  visible(ref: string | undefined): StoredChannel;
  /** Issues a one-use Socket Mode URL for apps.connections.open. */
  socketUrl(): string;
  /** The URL files.getUploadURLExternal hands out for one file. */
  uploadUrl(fileId: string, token: string): string;
  /** A bot message was posted or changed (events and waiters may care). */
  botMessageChanged(msg: StoredMessage, kind: 'posted' | 'updated' | 'deleted'): void;
}
