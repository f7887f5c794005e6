/**
 * Platform-neutral inbound events the adapters hand to the gateway: a chat message (`InboundMessage`) and
 * a button click (`ActionEvent`), plus `MessageRef` (a posted message) and attachments. Adapters build
 * them from SDK payloads; the gateway never sees an SDK type. `eventId` is the platform's redelivery key.
 */
import type { Platform, ThreadRef } from './thread-ref';

export interface ChatUser {
  /** Platform user id (Slack U…, Discord snowflake, Telegram numeric id as a string). */
  id: string;
  /** Display name when the platform sent one; for messages and audit lines only. */
  name?: string;
  isBot?: boolean;
  /** Platform roles of the user in this conversation (Discord guild roles), for route access rules. */
  roles?: string[];
  /** The user's own workspace when it is not the conversation's (Slack Connect). */
  team?: string;
}

/** A message the bot posted (or will edit): its thread plus the platform message id (ts / snowflake / message_id). */
export interface MessageRef {
  thread: ThreadRef;
  messageId: string;
}

export interface InboundAttachment {
  kind: 'image' | 'file';
  name: string;
  mimeType?: string;
  sizeBytes?: number;
  /** Fetches the bytes (adapters add auth headers / resolve file ids); URLs may be signed and expire. */
  download(): Promise<Buffer>;
}

export interface InboundMessage {
  platform: Platform;
  /** The conversation (binding key via `bindingKey(thread)`). */
  thread: ThreadRef;
  user: ChatUser;
  text: string;
  attachments: InboundAttachment[];
  /** True when the bot was addressed (mention, reply to the bot, slash command). */
  mentionsBot: boolean;
  /**
   * Not addressed, but said inside a thread (Slack thread, Discord thread) where following up without a
   * mention is allowed: the gateway takes it as addressed when the conversation already has a session.
   */
  followUp?: boolean;
  isDM: boolean;
  /** Redelivery key: Slack event_id, Telegram update_id, Discord message/interaction id. */
  eventId: string;
  /** The platform message id of this message (for reactions and replies). */
  messageId: string;
  /** The message this one replies to, when it is a reply. */
  replyTo?: MessageRef;
  /** Milliseconds since the epoch, from the platform. */
  sentAt: number;
}

export interface ActionAnswer {
  /** Short notice to the clicker (Telegram answerCallbackQuery text ≤200, Discord ephemeral, Slack ephemeral). */
  text?: string;
  /** Telegram show_alert; others show an ephemeral message. */
  alert?: boolean;
}

export interface ActionEvent {
  platform: Platform;
  thread: ThreadRef;
  user: ChatUser;
  /** The raw button payload (decode with `decodeActionPayload`). */
  payload: string;
  /** The message that carried the button. */
  message: MessageRef;
  eventId: string;
  /**
   * Acknowledge the click (Slack ack, Discord deferUpdate, Telegram answerCallbackQuery). Must be called
   * promptly (platforms give ~3 s); calling it twice is harmless. Errors classified `ignore` are swallowed.
   */
  answer(a?: ActionAnswer): Promise<void>;
}

export interface InboundHandler {
  onMessage(message: InboundMessage): Promise<void>;
  onAction(action: ActionEvent): Promise<void>;
  /**
   * The platform opened a conversation before anyone wrote in it (a Slack assistant thread), and the adapter
   * keeps in memory what it learned there: among several gateway instances this one should then own it.
   */
  onOpened?(thread: ThreadRef): Promise<void>;
}
