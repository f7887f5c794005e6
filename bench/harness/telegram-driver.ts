/**
 * The fake Telegram Bot API (test/fakes/telegram-server.ts, real flood limits: 1 msg/s per chat, 30 msg/s per
 * bot, answering 429 + retry_after) as a PlatformDriver. 'inbound' fires when a getUpdates answer carries the
 * user's message (the moment the update is delivered to the gateway); 'outbound' for every sendChatAction,
 * sendMessage, editMessageText and sendMessageDraft. Calls are not kept (recordCalls off), only counted.
 * `firstPollAt` is when the gateway's first getUpdates reached the fake (held open, or answered at once).
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { FakeTelegramServer } from '../../test/fakes/telegram-server';
import type { CallRecord } from '../../test/fakes/telegram-call-log';
import type { TgUpdate } from '../../test/fakes/telegram-types';
import { TELEGRAM_LIMITS } from '../../src/adapters/contract/limits';
import { chatKeyOf, emptyByKind, type OutKind, type PlatformDriver, type PlatformTotals } from './platform';

const KIND: Record<string, OutKind> = {
  sendchataction: 'typing',
  sendmessage: 'post',
  editmessagetext: 'edit',
  sendmessagedraft: 'draft',
};

const GROUP_BASE = -1_000_000_000;

function hasButtons(markup: unknown): boolean {
  let m = markup;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return false;
    }
  }
  const rows = (m as { inline_keyboard?: unknown[][] } | undefined)?.inline_keyboard;
  return Array.isArray(rows) && rows.some((r) => Array.isArray(r) && r.length > 0);
}

export class TelegramDriver extends EventEmitter implements PlatformDriver {
  readonly name = 'telegram' as const;
  readonly server = new FakeTelegramServer({ recordCalls: false, botUsername: 'bench_bot' });
  private started = false;
  private readonly counts: PlatformTotals = { calls: 0, rateLimited: 0, byKind: emptyByKind(), rateLimitedByKind: emptyByKind() };
  /** performance.now() of the first getUpdates request, once one arrived. */
  firstPollAt?: number;

  constructor() {
    super();
    this.setMaxListeners(0);
    this.server.on('call', (rec: CallRecord) => this.onCall(rec));
    // a long poll being held shows as a change with isPolling set; an answered one as a call record
    this.server.on('change', () => {
      if (this.server.isPolling) this.sawPoll(performance.now());
    });
  }

  private sawPoll(at: number): void {
    if (this.firstPollAt === undefined || at < this.firstPollAt) this.firstPollAt = at;
  }

  async start(): Promise<void> {
    await this.server.start();
    this.started = true;
  }

  gatewayOptions(): { telegram: { token: string; apiRoot: string } } {
    return { telegram: { token: this.server.token, apiRoot: this.server.apiRoot } };
  }

  async attach(): Promise<void> {
    // the gateway polls us; readiness already implies getMe and the first getUpdates
  }

  async send(chat: number, text: string, opts: { group?: boolean } = {}): Promise<void> {
    if (opts.group) {
      const id = GROUP_BASE - chat;
      this.server.injectMessage({ chat: { id, type: 'group' }, from: chat + 1, text: `@bench_bot ${text}` });
    } else {
      this.server.injectMessage({ chat: { id: chat, type: 'private' }, text });
    }
  }

  /** Telegram's per-chat pacing: ~1 message/s in a DM, 20/min in a group (platforms.md §3). */
  liveIntervalMs(group: boolean): number {
    return group ? TELEGRAM_LIMITS.minEditIntervalMs.group : TELEGRAM_LIMITS.minEditIntervalMs.dm;
  }

  totals(): PlatformTotals {
    return { ...this.counts, byKind: { ...this.counts.byKind }, rateLimitedByKind: { ...this.counts.rateLimitedByKind }, rateLimited: this.server.rateLimitedCount() };
  }

  async detach(): Promise<void> {
    // the gateway ends its own long poll when it stops
  }

  async close(): Promise<void> {
    if (this.started) await this.server.stop();
    this.started = false;
  }

  private onCall(rec: CallRecord): void {
    const at = performance.now();
    const method = rec.method.toLowerCase();
    if (method === 'getupdates') {
      this.sawPoll(at - rec.durationMs);
      if (!rec.ok || !Array.isArray(rec.result)) return;
      for (const u of rec.result as TgUpdate[]) {
        const chat = u.message?.chat.id;
        if (chat !== undefined) this.emit('inbound', { chat: this.chatKey(chat), at });
      }
      return;
    }
    if (rec.chatId === undefined) return;
    const kind = KIND[method] ?? 'other';
    this.counts.calls++;
    this.counts.byKind[kind]++;
    if (rec.status === 429) this.counts.rateLimitedByKind[kind]++;
    const text = typeof rec.params.text === 'string' ? rec.params.text : '';
    this.emit('outbound', {
      chat: this.chatKey(Number(rec.chatId)),
      kind,
      at,
      text,
      hasButtons: hasButtons(rec.params.reply_markup),
      ok: rec.ok,
      rateLimited: rec.status === 429,
    });
  }

  /** DMs are keyed by the user's number, groups by the number they were created from (see chatKeyOf). */
  private chatKey(id: number): string {
    return id < 0 ? chatKeyOf(GROUP_BASE - id, true) : chatKeyOf(id, false);
  }
}
