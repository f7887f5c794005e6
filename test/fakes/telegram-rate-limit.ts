/**
 * Telegram-like flood control for sends and edits, as token buckets read against an injectable clock:
 * per chat ~1/s with a small burst, per group/supergroup/channel 20/min, per bot 30/s. A call is
 * admitted only if every bucket it touches has a token; otherwise nothing is taken and the caller gets
 * the whole seconds to wait (≥1) for the 429's `retry_after`. O(1) per call; one bucket per chat.
 */
import type { FakeClock } from './telegram-types';

export interface BucketSpec {
  /** Calls allowed back to back before throttling starts. */
  burst: number;
  /** Calls per `perMs` the bucket refills at. */
  rate: number;
  perMs: number;
}

export interface RateLimitOptions {
  enabled?: boolean;
  perChat?: BucketSpec;
  perGroup?: BucketSpec;
  perBot?: BucketSpec;
}

export const DEFAULT_LIMITS: Required<RateLimitOptions> = {
  enabled: true,
  perChat: { burst: 3, rate: 1, perMs: 1000 },
  perGroup: { burst: 20, rate: 20, perMs: 60_000 },
  perBot: { burst: 30, rate: 30, perMs: 1000 },
};

class Bucket {
  private tokens: number;
  private last: number;
  constructor(private readonly spec: BucketSpec, now: number) {
    this.tokens = spec.burst;
    this.last = now;
  }
  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.spec.burst, this.tokens + ((now - this.last) * this.spec.rate) / this.spec.perMs);
    }
    this.last = Math.max(this.last, now);
  }
  /** Milliseconds until one token is available (0 = now). */
  waitMs(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * this.spec.perMs) / this.spec.rate;
  }
  take(): void {
    this.tokens -= 1;
  }
}

export type Admission = { ok: true } | { ok: false; retryAfter: number };

export class RateLimiter {
  private opts: Required<RateLimitOptions>;
  private chats = new Map<number, Bucket>();
  private groups = new Map<number, Bucket>();
  private bot: Bucket | undefined;

  constructor(options: RateLimitOptions | false | undefined, private readonly clock: FakeClock) {
    this.opts = { ...DEFAULT_LIMITS, ...(options || {}), enabled: options === false ? false : (options?.enabled ?? true) };
  }

  get enabled(): boolean {
    return this.opts.enabled;
  }

  setEnabled(on: boolean): void {
    this.opts.enabled = on;
  }

  /** Replaces the limits and forgets all spent tokens. */
  configure(options: RateLimitOptions): void {
    this.opts = { ...this.opts, ...options };
    this.reset();
  }

  reset(): void {
    this.chats.clear();
    this.groups.clear();
    this.bot = undefined;
  }

  /** Admits one send/edit into `chatId`, taking a token from each bucket, or says how long to wait. */
  admit(chatId: number, isGroup: boolean): Admission {
    if (!this.opts.enabled) return { ok: true };
    const now = this.clock.now();
    const buckets = [this.bucket(this.chats, chatId, this.opts.perChat, now)];
    if (isGroup) buckets.push(this.bucket(this.groups, chatId, this.opts.perGroup, now));
    this.bot ??= new Bucket(this.opts.perBot, now);
    buckets.push(this.bot);
    const wait = Math.max(...buckets.map((b) => b.waitMs(now)));
    if (wait > 0) return { ok: false, retryAfter: Math.max(1, Math.ceil(wait / 1000)) };
    for (const b of buckets) b.take();
    return { ok: true };
  }

  private bucket(map: Map<number, Bucket>, key: number, spec: BucketSpec, now: number): Bucket {
    let b = map.get(key);
    if (!b) {
      b = new Bucket(spec, now);
      map.set(key, b);
    }
    return b;
  }
}
