/**
 * What a benchmark sees of a chat platform, the same for the fake Telegram, the fake Slack, the fake Discord and the web playground: it sends
 * a user message into a chat, learns when the gateway received it ('inbound'), and observes every
 * outbound call the gateway makes for a chat ('outbound': typing, post, edit or draft, with the text shown,
 * whether the Stop button is still there, and whether the platform answered 429). Times are performance.now().
 */
import type { EventEmitter } from 'node:events';
import type { GatewayProcess } from './gateway-process';

export type OutKind = 'typing' | 'post' | 'edit' | 'draft' | 'other';

export interface OutboundCall {
  chat: string;
  kind: OutKind;
  at: number;
  /** Text as sent (HTML on Telegram, Discord Markdown, Markdown on the web); '' for typing. */
  text: string;
  /** The message still carries buttons (Stop while the Task runs). */
  hasButtons: boolean;
  ok: boolean;
  rateLimited: boolean;
}

export interface InboundDelivered {
  chat: string;
  at: number;
}

export interface PlatformTotals {
  /** Calls the gateway made about chats (typing, sends, edits, drafts), 429s included. */
  calls: number;
  rateLimited: number;
  byKind: Record<OutKind, number>;
  /** 429 answers by kind of call. */
  rateLimitedByKind: Record<OutKind, number>;
}

export interface PlatformDriver extends EventEmitter {
  readonly name: 'telegram' | 'web' | 'slack' | 'discord';
  /** Gateway options this platform needs (the fake's API root and token). */
  gatewayOptions(): { telegram?: { token: string; apiRoot: string }; slack?: { botToken: string; signingSecret: string; apiUrl: string }; discord?: { token: string; apiUrl: string } };
  /** Called once the gateway is ready. */
  attach(gw: GatewayProcess): Promise<void>;
  /** A user writes `text` in chat `chat` (a DM unless `group`); resolves when it was handed over. */
  send(chat: number, text: string, opts?: { group?: boolean }): Promise<void>;
  /** Minimum interval between two live updates of one reply, ms: what the platform allows (the floor). */
  liveIntervalMs(group: boolean): number;
  totals(): PlatformTotals;
  /** Drops connections into the gateway (before it is stopped, so its shutdown need not wait for them). */
  detach(): Promise<void>;
  close(): Promise<void>;
  on(event: 'outbound', l: (c: OutboundCall) => void): this;
  on(event: 'inbound', l: (e: InboundDelivered) => void): this;
}

export const emptyByKind = (): Record<OutKind, number> => ({ typing: 0, post: 0, edit: 0, draft: 0, other: 0 });

/** The key 'inbound' / 'outbound' events carry for the chat a benchmark sent to as `send(chat, …, {group})`. */
export const chatKeyOf = (chat: number, group = false): string => (group ? `g${chat}` : String(chat));
