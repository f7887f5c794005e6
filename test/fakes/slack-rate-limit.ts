/**
 * Slack-like rate limits as token buckets read against an injectable clock: per method × workspace
 * (the documented tiers: Tier 1 1+/min, Tier 2 20+/min, Tier 3 50+/min, Tier 4 100+/min, bursts
 * tolerated) and, where Slack says so, per channel (chat.postMessage ~1/s per channel with short
 * bursts). A call is admitted only if every bucket it touches has a token; otherwise nothing is taken
 * and the caller gets the whole seconds to wait (≥1) for `Retry-After`. O(1) per call.
 */
import type { FakeClock } from './slack-types';

export interface RateSpec {
  /** Sustained calls per minute. */
  perMinute: number;
  /** Calls allowed back to back before throttling starts; default `perMinute` (min 1). */
  burst?: number;
  /** What one bucket covers: the whole workspace (default) or one channel of it. */
  scope?: 'workspace' | 'channel';
}

/** Per-method limits; `false` switches a method's limit off. */
export type RateLimitConfig = Record<string, RateSpec | RateSpec[] | false>;

export const TIERS = {
  tier1: { perMinute: 1, burst: 5 },
  tier2: { perMinute: 20 },
  tier3: { perMinute: 50 },
  tier4: { perMinute: 100 },
} satisfies Record<string, RateSpec>;

export const DEFAULT_RATE_LIMITS: Record<string, RateSpec[]> = {
  'auth.test': [{ perMinute: 600 }],
  'apps.connections.open': [TIERS.tier1],
  'chat.postMessage': [
    { perMinute: 60, burst: 3, scope: 'channel' },
    { perMinute: 300, burst: 100 },
  ],
  'chat.postEphemeral': [TIERS.tier4],
  'chat.update': [TIERS.tier3],
  'chat.delete': [TIERS.tier3],
  'chat.startStream': [TIERS.tier2],
  'chat.appendStream': [TIERS.tier4],
  'chat.stopStream': [TIERS.tier2],
  'reactions.add': [TIERS.tier3],
  'users.info': [TIERS.tier4],
  'conversations.info': [TIERS.tier3],
  'assistant.threads.setStatus': [{ perMinute: 60, scope: 'channel' }],
  'assistant.threads.setTitle': [TIERS.tier3],
  'assistant.threads.setSuggestedPrompts': [TIERS.tier3],
  'files.getUploadURLExternal': [TIERS.tier4],
  'files.completeUploadExternal': [TIERS.tier4],
  'files.info': [TIERS.tier4],
};

class Bucket {
  private tokens: number;
  private last: number;
  private readonly burst: number;
  constructor(private readonly spec: RateSpec, now: number) {
    this.burst = Math.max(1, spec.burst ?? spec.perMinute);
    this.tokens = this.burst;
    this.last = now;
  }
  /** Milliseconds until one token is available (0 = now). */
  waitMs(now: number): number {
    if (now > this.last) this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.spec.perMinute) / 60_000);
    this.last = Math.max(this.last, now);
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * 60_000) / this.spec.perMinute;
  }
  take(): void {
    this.tokens -= 1;
  }
}

export type Admission = { ok: true } | { ok: false; retryAfter: number; scope: 'workspace' | 'channel' };

export class SlackRateLimiter {
  private limits: Map<string, RateSpec[]>;
  private enabled: boolean;
  private buckets = new Map<string, Bucket>();

  constructor(config: RateLimitConfig | false | undefined, private readonly clock: FakeClock) {
    this.enabled = config !== false;
    this.limits = new Map(Object.entries(DEFAULT_RATE_LIMITS));
    if (config) this.apply(config);
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  setEnabled(on: boolean): void {
    this.enabled = on;
  }

  /** Replaces the named methods' limits and forgets all spent tokens. */
  configure(config: RateLimitConfig): void {
    this.apply(config);
    this.buckets.clear();
  }

  limitsOf(method: string): RateSpec[] {
    return (this.limits.get(method) ?? []).map((s) => ({ ...s }));
  }

  /** Admits one call of `method` in workspace `team` (and `channel`), or says how long to wait. */
  admit(method: string, team: string, channel: string | undefined): Admission {
    if (!this.enabled) return { ok: true };
    const specs = this.limits.get(method);
    if (!specs || specs.length === 0) return { ok: true };
    const now = this.clock.now();
    let wait = 0;
    let scope: 'workspace' | 'channel' = 'workspace';
    const touched: Bucket[] = [];
    specs.forEach((spec, i) => {
      const perChannel = spec.scope === 'channel';
      if (perChannel && channel === undefined) return;
      const key = `${method}|${i}|${team}${perChannel ? `|${channel}` : ''}`;
      let b = this.buckets.get(key);
      if (!b) {
        b = new Bucket(spec, now);
        this.buckets.set(key, b);
      }
      const w = b.waitMs(now);
      if (w > wait) {
        wait = w;
        scope = perChannel ? 'channel' : 'workspace';
      }
      touched.push(b);
    });
    if (wait > 0) return { ok: false, retryAfter: Math.max(1, Math.ceil(wait / 1000)), scope };
    for (const b of touched) b.take();
    return { ok: true };
  }

  private apply(config: RateLimitConfig): void {
    for (const [method, spec] of Object.entries(config)) {
      if (spec === false) this.limits.set(method, []);
      else this.limits.set(method, (Array.isArray(spec) ? spec : [spec]).map((s) => ({ ...s })));
    }
  }
}
