/**
 * Follows live replies through a PlatformDriver's events: per watched chat, when the gateway got the user's
 * message, its first outbound call, each token's first appearance in a live update (any call, drafts
 * included), and when the reply was complete — a real message (not a draft) without the Stop button (the
 * live-only status line is gone with it) showing the last token. One listener serves every chat.
 */
import { performance } from 'node:perf_hooks';
import { emptyByKind, type InboundDelivered, type OutboundCall, type OutKind, type PlatformDriver } from './platform';
import { TOKEN_RE, tokenWord } from './model-server';

export interface WatchOptions {
  /** Tokens in the reply (the last one must be visible for the reply to be complete); 0 = status only. */
  tokens: number;
  /** Record the first appearance of every token. */
  trackTokens?: boolean;
}

export class ReplyWatch {
  inboundAt?: number;
  firstOutAt?: number;
  firstOutKind?: OutKind;
  /** First post, edit or draft (typing excluded). */
  firstContentAt?: number;
  /** Times of live updates: successful posts, edits and drafts that do not show the finished reply. */
  readonly liveAt: number[] = [];
  completeAt?: number;
  calls = 0;
  rateLimited = 0;
  readonly byKind = emptyByKind();
  readonly tokenSeenAt?: Float64Array;
  private readonly lastWord: string;
  private resolveDone!: () => void;
  readonly done: Promise<void>;

  constructor(readonly chat: string, o: WatchOptions) {
    this.lastWord = o.tokens > 0 ? tokenWord(o.tokens - 1).trim() : '';
    if (o.trackTokens) this.tokenSeenAt = new Float64Array(o.tokens);
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  onInbound(at: number): void {
    this.inboundAt ??= at;
  }

  onCall(c: OutboundCall): void {
    this.calls++;
    this.byKind[c.kind]++;
    if (c.rateLimited) this.rateLimited++;
    if (this.firstOutAt === undefined) {
      this.firstOutAt = c.at;
      this.firstOutKind = c.kind;
    }
    if (c.kind !== 'typing' && c.kind !== 'other') this.firstContentAt ??= c.at;
    if (!c.ok || this.completeAt !== undefined) return;
    const message = c.kind === 'post' || c.kind === 'edit';
    const settled = message && !c.hasButtons && (this.lastWord === '' || c.text.includes(this.lastWord));
    if (c.kind !== 'typing' && c.kind !== 'other' && !settled) this.liveAt.push(c.at);
    if (this.tokenSeenAt && c.text) {
      for (const m of c.text.matchAll(TOKEN_RE)) {
        const k = Number(m[1]);
        if (k < this.tokenSeenAt.length && this.tokenSeenAt[k] === 0) this.tokenSeenAt[k] = c.at;
      }
    }
    if (settled) {
      this.completeAt = c.at;
      this.resolveDone();
    }
  }
}

/** Routes driver events to the watch of their chat. */
export class ReplyObserver {
  private readonly watches = new Map<string, ReplyWatch>();
  private readonly onOut = (c: OutboundCall) => this.watches.get(c.chat)?.onCall(c);
  private readonly onIn = (e: InboundDelivered) => this.watches.get(e.chat)?.onInbound(e.at);

  constructor(private readonly driver: PlatformDriver) {
    driver.on('outbound', this.onOut);
    driver.on('inbound', this.onIn);
  }

  /** Starts following `chat`'s next reply (replacing an earlier watch of that chat). */
  watch(chat: string, o: WatchOptions): ReplyWatch {
    const w = new ReplyWatch(chat, o);
    this.watches.set(chat, w);
    return w;
  }

  dispose(): void {
    this.driver.off('outbound', this.onOut);
    this.driver.off('inbound', this.onIn);
    this.watches.clear();
  }
}

/** Resolves when every watch is complete or the deadline passes; returns how many completed. */
export async function waitAll(watches: readonly ReplyWatch[], timeoutMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((r) => {
    timer = setTimeout(r, timeoutMs);
  });
  await Promise.race([Promise.all(watches.map((w) => w.done)), deadline]);
  if (timer) clearTimeout(timer);
  return watches.filter((w) => w.completeAt !== undefined).length;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A sleep that never keeps the process alive (for deadlines raced against work). */
export const deadlineSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
export const now = (): number => performance.now();
