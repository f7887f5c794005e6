/**
 * The Discord budgets a call draws from, learned from the X-RateLimit-* headers of every REST answer
 * rather than hard-coded (platforms.md §2): each route kind (create, edit, delete, typing, reaction,
 * thread) has a bucket per channel, identified by Discord's `X-RateLimit-Bucket` hash once seen (routes
 * sharing a hash share a budget); its limit and window come from `Limit` and `Reset-After`. Until a
 * header is seen, the observed 5 per 5 s stands in. The bot-wide 50 req/s is Discord's documented global
 * limit (no header announces it), spent 10% under. Keys: `discord:<bot>:<bucket>:<channel>`.
 */
import type { RateLimit, RateOp, RateScope } from '../contract/rate';

export type RouteKind = 'create' | 'edit' | 'delete' | 'typing' | 'reaction' | 'thread' | 'webhook' | 'other';
const KINDS: RouteKind[] = ['create', 'edit', 'delete', 'typing', 'reaction', 'thread'];

export interface BucketShape {
  limit: number;
  windowMs: number;
}

/** Discord's global limit is 50 requests/s per bot; 10% under, as the governor counts on departure. */
export const DISCORD_GLOBAL: RateLimit = { count: 45, perMs: 1_000, burst: 45 };
/** Until the headers say otherwise (platforms.md §2, observed ~5 writes per 5 s per channel). */
export const SEED_SHAPE: BucketShape = { limit: 5, windowMs: 5_000 };

const OP_KIND: Record<RateOp, RouteKind> = {
  post: 'create', edit: 'edit', delete: 'delete', typing: 'typing', reaction: 'reaction',
  // not used on Discord (no native streams, ephemerals only through interactions): the message bucket
  draft: 'create', stream_start: 'create', stream_append: 'create', stream_stop: 'create', ephemeral: 'create',
};

/** The route kind and major parameter of a REST call, from its method and URL. */
export function routeOf(method: string, url: string): { kind: RouteKind; major: string } | undefined {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/[?#].*$/, '').replace(/^.*?\/v\d+(?=\/)/, '');
  const m = method.toUpperCase();
  let r = /^\/channels\/(\d+)\/messages\/\d+\/reactions\//.exec(path);
  if (r) return { kind: 'reaction', major: r[1] };
  r = /^\/channels\/(\d+)\/messages\/\d+\/threads$/.exec(path);
  if (r) return { kind: 'thread', major: r[1] };
  r = /^\/channels\/(\d+)\/messages\/\d+$/.exec(path);
  if (r) return m === 'PATCH' ? { kind: 'edit', major: r[1] } : m === 'DELETE' ? { kind: 'delete', major: r[1] } : { kind: 'other', major: r[1] };
  r = /^\/channels\/(\d+)\/messages$/.exec(path);
  if (r) return m === 'POST' ? { kind: 'create', major: r[1] } : { kind: 'other', major: r[1] };
  r = /^\/channels\/(\d+)\/typing$/.exec(path);
  if (r) return { kind: 'typing', major: r[1] };
  if (/^\/webhooks\//.test(path)) return { kind: 'webhook', major: 'webhook' };
  return undefined;
}

/**
 * A token bucket that never admits more than `limit` in any `windowMs`, however Discord aligns its
 * window: `burst` at once, then c = limit − burst + 1 tokens per window·(c+1)/c, so any window admits
 * fewer than burst + c²/(c+1) + 1 = limit + 1 − c/(c+1), i.e. at most `limit`. More burst, less pace.
 */
export function governorLimit(shape: BucketShape, burst = 1): RateLimit {
  const limit = Math.max(1, Math.floor(shape.limit));
  const b = Math.min(limit, Math.max(1, Math.floor(burst)));
  const c = limit - b + 1;
  return { count: c, perMs: Math.max(1, Math.ceil((shape.windowMs * (c + 1)) / c)), burst: b };
}

/** Burst per route kind: typing comes in bursts (one per message) and needs little pace; a new reply and
 * its next part may go back to back; edits need the pace (one per 1.2 s per message). */
function burstOf(kind: RouteKind, limit: number): number {
  if (kind === 'typing') return Math.ceil(limit / 2);
  if (kind === 'create') return Math.min(2, limit);
  return 1;
}

export class RateBook {
  /** Route kind → Discord's bucket hash for it. */
  private readonly hashes = new Map<RouteKind, string>();
  /** Bucket (hash, or kind before a hash is known) → its shape. */
  private readonly shapes = new Map<string, BucketShape>();

  /** Reads one answer's rate-limit headers. */
  observe(method: string, url: string, header: (name: string) => string | null | undefined): void {
    const route = routeOf(method, url);
    if (!route || route.kind === 'other' || route.kind === 'webhook') return;
    const limit = Number(header('x-ratelimit-limit'));
    const resetAfter = Number(header('x-ratelimit-reset-after'));
    if (!Number.isFinite(limit) || limit < 1) return;
    const hash = header('x-ratelimit-bucket') ?? undefined;
    if (hash) this.hashes.set(route.kind, hash);
    const bucket = this.bucketOf(route.kind);
    const before = this.shapes.get(bucket);
    // the window is the longest reset seen: right after a window opens, Reset-After is the whole window
    const windowMs = Math.max(before?.windowMs ?? 0, Number.isFinite(resetAfter) ? Math.ceil(resetAfter * 1000) : 0) || SEED_SHAPE.windowMs;
    this.shapes.set(bucket, { limit, windowMs });
  }

  /** What is known of a route kind's bucket. */
  shapeOf(kind: RouteKind): BucketShape {
    return this.shapes.get(this.bucketOf(kind)) ?? SEED_SHAPE;
  }

  /** The bot's global bucket, then the channel's bucket for the operation. */
  scopes(bot: string, channel: string, op: RateOp): RateScope[] {
    const kind = OP_KIND[op];
    return [
      { key: `discord:${bot}:global`, limit: DISCORD_GLOBAL, level: 'account' },
      { key: `discord:${bot}:${this.bucketOf(kind)}:${channel}`, limit: governorLimit(this.shapeOf(kind), this.burstFor(kind)), level: 'chat' },
    ];
  }

  /** The smallest burst of the kinds sharing this kind's bucket, so one bucket always has one limit. */
  private burstFor(kind: RouteKind): number {
    const bucket = this.bucketOf(kind);
    const limit = this.shapeOf(kind).limit;
    const sharing = KINDS.filter((k) => this.bucketOf(k) === bucket);
    return Math.min(...sharing.map((k) => burstOf(k, limit)));
  }

  private bucketOf(kind: RouteKind): string {
    return this.hashes.get(kind) ?? kind;
  }
}
