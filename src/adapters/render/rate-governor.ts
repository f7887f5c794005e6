/**
 * RateGovernor: the shared budget of every writer and poster (gateway.md §4). A request names token buckets
 * (account, method, chat) and goes when all have a token. Finals go first and reserve the future tokens they
 * wait for, so live requests use only spare ones (finals never starve); live requests wait in a heap by due
 * time, each planned for its place in line, and give up once that place is known to lie past `maxWaitMs`. `pause`
 * applies retry_after. A pass costs O(finals + due live requests).
 */
import type { Clock, TimerHandle } from '../contract/clock';
import type { RatePriority, RateScope } from '../contract/rate';
import { TokenBucket } from './token-bucket';
import { MinHeap } from './min-heap';

export interface AcquireOptions {
  priority: RatePriority;
  /** Give up (granted: false) when the expected wait exceeds this; finals usually pass none. */
  maxWaitMs?: number;
  signal?: AbortSignal;
}

export type Grant =
  | { granted: true; waitedMs: number }
  | { granted: false; reason: 'wait_too_long' | 'aborted'; retryAt: number };

export interface BucketStats {
  key: string;
  tokens: number;
  /** The bucket's burst: `tokens < capacity` means the budget is in use. */
  capacity: number;
  pausedUntil: number | null;
}

interface Waiter {
  seq: number;
  buckets: TokenBucket[];
  priority: RatePriority;
  since: number;
  deadline: number;
  /** Live requests: when their tokens are next expected (heap key). */
  due: number;
  done: boolean;
  resolve: (g: Grant) => void;
  onAbort?: () => void;
  signal?: AbortSignal;
}

export interface GovernorOptions {
  /** Observer of every grant (metrics, tests). */
  onGrant?: (keys: string[], at: number, priority: RatePriority) => void;
  /** Forget idle full buckets once more than this many exist. */
  maxIdleBuckets?: number;
  /**
   * How many processes spend the same account and method budgets (gateway instances on one bot); each
   * gets its share of those. Chat budgets are whole: one instance owns a chat and is its only writer.
   */
  sharers?: () => number;
}

const earlier = (a: Waiter, b: Waiter) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

export class RateGovernor {
  private readonly buckets = new Map<string, TokenBucket>();
  private finals: Waiter[] = [];
  /** Live waiters by (due, seq). */
  private readonly lives = new MinHeap<Waiter>(earlier);
  private liveCount = 0;
  private seq = 0;
  private passes = 0;
  private timer?: TimerHandle;
  private timerAt = Infinity;

  constructor(private readonly clock: Clock, private readonly opts: GovernorOptions = {}) {}

  private bucket(scope: RateScope): TokenBucket {
    const limit = this.shareOf(scope);
    let b = this.buckets.get(scope.key);
    if (!b) {
      b = new TokenBucket(scope.key, limit, this.clock.now());
      this.buckets.set(scope.key, b);
    } else if (b.limit.count !== limit.count || b.limit.perMs !== limit.perMs || b.limit.burst !== limit.burst) {
      b.limit = { ...limit };
    }
    return b;
  }

  private shareOf(scope: RateScope): RateScope['limit'] {
    const n = scope.level === 'chat' ? 1 : Math.max(1, Math.floor(this.opts.sharers?.() ?? 1));
    if (n === 1) return scope.limit;
    return { count: scope.limit.count / n, perMs: scope.limit.perMs, burst: Math.max(1, Math.floor(scope.limit.burst / n)) };
  }

  acquire(scopes: readonly RateScope[], opts: AcquireOptions): Promise<Grant> {
    const now = this.clock.now();
    if (opts.signal?.aborted) return Promise.resolve({ granted: false, reason: 'aborted', retryAt: now });
    const unique = new Map<string, RateScope>();
    for (const s of scopes) unique.set(s.key, s);
    const buckets = [...unique.values()].map((s) => this.bucket(s));
    return new Promise<Grant>((resolve) => {
      const w: Waiter = {
        seq: ++this.seq,
        buckets,
        priority: opts.priority,
        since: now,
        deadline: opts.maxWaitMs === undefined ? Infinity : now + Math.max(0, opts.maxWaitMs),
        due: now,
        done: false,
        resolve,
        signal: opts.signal,
      };
      if (opts.signal) {
        w.onAbort = () => {
          if (w.done) return;
          this.settle(w, { granted: false, reason: 'aborted', retryAt: this.clock.now() });
          if (w.priority === 'final') this.finals = this.finals.filter((x) => x !== w);
          this.pass();
        };
        opts.signal.addEventListener('abort', w.onAbort, { once: true });
      }
      if (w.priority === 'final') this.finals.push(w);
      else {
        this.lives.push(w);
        this.liveCount++;
      }
      this.pass();
    });
  }

  /** A platform said "retry after `ms`" for these buckets. */
  pause(scopes: readonly RateScope[], ms: number): void {
    const now = this.clock.now();
    for (const s of scopes) this.bucket(s).pause(now, now + Math.max(0, ms));
    this.pass();
  }

  stats(): BucketStats[] {
    const now = this.clock.now();
    return [...this.buckets.values()].map((b) => {
      const until = b.pausedUntil(now);
      return { key: b.key, tokens: b.level(now), capacity: b.limit.burst, pausedUntil: until > now ? until : null };
    });
  }

  /** Requests currently waiting. */
  get waiting(): number {
    return this.finals.length + this.liveCount;
  }

  private settle(w: Waiter, g: Grant): void {
    if (w.done) return;
    w.done = true;
    if (w.priority === 'live') this.liveCount--;
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(g);
  }

  private grant(w: Waiter, now: number): void {
    for (const b of w.buckets) b.takeNow();
    this.opts.onGrant?.(w.buckets.map((b) => b.key), now, w.priority);
    this.settle(w, { granted: true, waitedMs: now - w.since });
  }

  /** Whole milliseconds, forgiving float noise so a token due at 7000 ms is not waited for until 7001. */
  private readyAt(w: Waiter, now: number): number {
    let at = now;
    for (const b of w.buckets) at = Math.max(at, b.earliest());
    return Math.max(now + 1, Math.ceil(at - 1e-6));
  }

  private canGo(w: Waiter, id: number, now: number): boolean {
    let ok = true;
    for (const b of w.buckets) {
      b.plan(id, now);
      if (!b.canTakeNow()) ok = false;
    }
    return ok;
  }

  private pass(): void {
    const now = this.clock.now();
    const id = ++this.passes;
    let wake = Infinity;
    const waitingFinals: Waiter[] = [];
    for (const w of this.finals) {
      if (w.done) continue;
      if (this.canGo(w, id, now)) {
        this.grant(w, now);
        continue;
      }
      const at = this.readyAt(w, now);
      for (const b of w.buckets) b.reserve(at);
      waitingFinals.push(w);
      wake = Math.min(wake, at);
    }
    this.finals = waitingFinals;
    const later: Waiter[] = [];
    for (let w = this.lives.peek(); w && (w.done || w.due <= now); w = this.lives.peek()) {
      this.lives.pop();
      if (w.done) continue;
      if (this.canGo(w, id, now)) {
        this.grant(w, now);
        continue;
      }
      const at = this.readyAt(w, now);
      if (at > w.deadline) {
        this.settle(w, { granted: false, reason: 'wait_too_long', retryAt: at });
        continue;
      }
      // Its place in line: the live requests behind it in this pass plan from the token after, so a
      // backlog on a shared bucket is woken one token at a time, not all at each token.
      for (const b of w.buckets) b.reserve(at);
      w.due = at;
      later.push(w);
    }
    for (const w of later) this.lives.push(w);
    const next = this.lives.peek();
    if (next) wake = Math.min(wake, next.due);
    this.arm(wake);
    if (this.waiting === 0) this.prune(now);
  }

  private arm(at: number): void {
    if (at === this.timerAt) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at === Infinity) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pass();
    }, at - this.clock.now());
  }

  private prune(now: number): void {
    const max = this.opts.maxIdleBuckets ?? 10_000;
    if (this.buckets.size <= max) return;
    for (const [k, b] of this.buckets) if (b.isIdle(now)) this.buckets.delete(k);
  }
}
