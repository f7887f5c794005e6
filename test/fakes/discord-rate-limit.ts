/**
 * Discord-style REST rate limits for the fake: fixed-window buckets per route group and major
 * parameter (channel / guild / webhook id+token), an optional hidden per-resource sub-limit (e.g. edits
 * of one message), and a global per-bot window that interaction endpoints skip. Every verdict carries
 * the `X-RateLimit-*` headers Discord sends; a refusal also carries the 429 body, `Retry-After` and scope.
 */
import { createHash } from 'node:crypto';
import type { FakeClock } from './discord-types';

export interface BucketLimit {
  limit: number;
  windowMs: number;
}

/** Route groups with their own buckets; every other route shares `default` per major parameter. */
export type BucketGroup =
  | 'createMessage'
  | 'editMessage'
  | 'deleteMessage'
  | 'typing'
  | 'reaction'
  | 'thread'
  | 'interactionCallback'
  | 'webhook'
  | 'commands'
  | 'default';

export interface DiscordRateLimitOptions {
  /** Requests per bot across all routes but interaction endpoints. Default 50 per second. */
  global?: BucketLimit | false;
  routes?: Partial<Record<BucketGroup, BucketLimit | false>>;
  /** Extra limit per edited message (Discord's observed ~1 edit/s per message). Default off. */
  perMessageEdit?: BucketLimit | false;
}

export const DEFAULT_ROUTE_LIMITS: Record<BucketGroup, BucketLimit | false> = {
  createMessage: { limit: 5, windowMs: 5000 },
  editMessage: { limit: 5, windowMs: 5000 },
  deleteMessage: { limit: 5, windowMs: 1000 },
  typing: { limit: 5, windowMs: 5000 },
  reaction: { limit: 1, windowMs: 250 },
  thread: { limit: 10, windowMs: 10_000 },
  interactionCallback: false,
  webhook: { limit: 5, windowMs: 2000 },
  commands: { limit: 10, windowMs: 10_000 },
  default: { limit: 50, windowMs: 1000 },
};

export const DEFAULT_GLOBAL_LIMIT: BucketLimit = { limit: 50, windowMs: 1000 };

export type RateScope = 'user' | 'global' | 'shared';

export interface RateVerdict {
  ok: boolean;
  headers: Record<string, string>;
  /** Set on refusals: seconds to wait, scope and whether it was the global limit. */
  retryAfter?: number;
  scope?: RateScope;
  global?: boolean;
}

class Window {
  start = -Infinity;
  used = 0;
  constructor(readonly spec: BucketLimit) {}

  roll(now: number): void {
    if (now >= this.start + this.spec.windowMs) {
      this.start = now;
      this.used = 0;
    }
  }
  resetAt(): number {
    return this.start + this.spec.windowMs;
  }
}

const secs = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);
export const bucketHash = (group: string): string => createHash('md5').update(`fake-discord:${group}`).digest('hex');

export function rateLimitBody(retryAfterSeconds: number, global: boolean, message = 'You are being rate limited.'): { message: string; retry_after: number; global: boolean } {
  return { message, retry_after: Math.round(retryAfterSeconds * 1000) / 1000, global };
}

export class DiscordRateLimiter {
  private global: BucketLimit | false;
  private routes: Record<BucketGroup, BucketLimit | false>;
  private perMessage: BucketLimit | false;
  private enabled: boolean;
  private windows = new Map<string, Window>();
  private globalWindow: Window | undefined;

  constructor(options: DiscordRateLimitOptions | false | undefined, private readonly clock: FakeClock) {
    this.enabled = options !== false;
    const o = options || {};
    this.global = o.global === undefined ? DEFAULT_GLOBAL_LIMIT : o.global;
    this.routes = { ...DEFAULT_ROUTE_LIMITS, ...(o.routes ?? {}) } as Record<BucketGroup, BucketLimit | false>;
    this.perMessage = o.perMessageEdit ?? false;
  }

  setEnabled(on: boolean): void {
    this.enabled = on;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** Merges new limits and forgets every spent window. */
  configure(options: DiscordRateLimitOptions): void {
    if (options.global !== undefined) this.global = options.global;
    if (options.routes) this.routes = { ...this.routes, ...options.routes } as Record<BucketGroup, BucketLimit | false>;
    if (options.perMessageEdit !== undefined) this.perMessage = options.perMessageEdit;
    this.reset();
  }

  reset(): void {
    this.windows.clear();
    this.globalWindow = undefined;
  }

  /** The route bucket's limit for a group (after overrides), or false when it has none. */
  limitOf(group: BucketGroup): BucketLimit | false {
    return this.routes[group];
  }

  /**
   * Admits one request (taking from every window it touches) or refuses it without taking anything
   * from the route bucket. `subKey` names a resource with its own hidden sub-limit (a message id).
   */
  admit(group: BucketGroup, major: string, countsGlobal: boolean, subKey?: string): RateVerdict {
    if (!this.enabled) return { ok: true, headers: {} };
    const now = this.clock.now();
    if (countsGlobal && this.global) {
      const g = (this.globalWindow ??= new Window(this.global));
      g.roll(now);
      if (g.used >= g.spec.limit) {
        const wait = (g.resetAt() - now) / 1000;
        return {
          ok: false,
          retryAfter: wait,
          scope: 'global',
          global: true,
          headers: { 'retry-after': String(Math.max(1, Math.ceil(wait))), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' },
        };
      }
      g.used++;
    }
    const spec = this.routes[group];
    if (!spec) return { ok: true, headers: {} };
    const key = `${group}:${major}`;
    let w = this.windows.get(key);
    if (!w) {
      w = new Window(spec);
      this.windows.set(key, w);
    }
    w.roll(now);
    const headers = (remaining: number): Record<string, string> => ({
      'x-ratelimit-limit': String(spec.limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': (w!.resetAt() / 1000).toFixed(3),
      'x-ratelimit-reset-after': secs(w!.resetAt() - now),
      'x-ratelimit-bucket': bucketHash(group),
    });
    if (w.used >= spec.limit) return this.refuse(headers(0), (w.resetAt() - now) / 1000);
    if (subKey !== undefined && this.perMessage) {
      const sk = `sub:${group}:${subKey}`;
      let sub = this.windows.get(sk);
      if (!sub) {
        sub = new Window(this.perMessage);
        this.windows.set(sk, sub);
      }
      sub.roll(now);
      if (sub.used >= sub.spec.limit) return this.refuse(headers(spec.limit - w.used), (sub.resetAt() - now) / 1000);
      sub.used++;
    }
    w.used++;
    return { ok: true, headers: headers(spec.limit - w.used) };
  }

  private refuse(headers: Record<string, string>, waitSeconds: number): RateVerdict {
    return {
      ok: false,
      retryAfter: waitSeconds,
      scope: 'user',
      global: false,
      headers: { ...headers, 'retry-after': String(Math.max(1, Math.ceil(waitSeconds))), 'x-ratelimit-scope': 'user' },
    };
  }
}
