/**
 * FakeClock: a deterministic `Clock` for tests. Time moves only when the test says so; `advance(ms)` fires
 * due timers in time order (ties in creation order) and lets promise chains run between timers, so async
 * code driven by the clock (writers, governors, retries) behaves as under real time, only instantly.
 */
import type { Clock, TimerHandle } from '../../src/adapters/contract/clock';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** Let queued promise callbacks (and whatever they chain) run; no real time passes. */
export async function drainMicrotasks(rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.id < b.id);

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  /** Min-heap by (at, id); cancelled timers are skipped lazily. */
  private heap: Timer[] = [];
  private live = new Set<number>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: ++this.seq, at: this.t + Math.max(0, ms), fn };
    this.live.add(timer.id);
    this.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.live.delete((handle as { id: number }).id);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.live.size;
  }

  /** Time of the earliest pending timer, if any. */
  nextAt(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.at;
  }

  private push(x: Timer): void {
    const h = this.heap;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }

  private dropCancelled(): void {
    while (this.heap.length && !this.live.has(this.heap[0].id)) this.pop();
  }

  private popDue(limit: number): Timer | undefined {
    this.dropCancelled();
    if (!this.heap.length || this.heap[0].at > limit) return undefined;
    const t = this.pop()!;
    this.live.delete(t.id);
    return t;
  }

  /** Move time forward by `ms`, firing every timer that falls due, in order (promise chains run in between). */
  async advance(ms: number): Promise<void> {
    const end = this.t + Math.max(0, ms);
    await drainMicrotasks();
    await this.fireUntil(end);
    this.t = end;
  }

  private async fireUntil(limit: number): Promise<void> {
    for (;;) {
      const next = this.popDue(limit);
      if (!next) return;
      this.t = Math.max(this.t, next.at);
      next.fn();
      await drainMicrotasks();
    }
  }

  /** Jump from timer to timer until `promise` settles; fails after `maxMs` of fake time (a hung test). */
  async settle<T>(promise: Promise<T>, maxMs = 24 * 3600_000): Promise<T> {
    let done = false;
    let value: T | undefined;
    let error: unknown;
    let failed = false;
    promise.then(
      (v) => { done = true; value = v; },
      (e) => { done = true; failed = true; error = e; },
    );
    const limit = this.t + maxMs;
    await drainMicrotasks();
    while (!done) {
      const at = this.nextAt();
      if (at === undefined || at > limit) throw new Error(`FakeClock.settle: promise still pending after ${maxMs} ms of fake time (${this.pending} timers left)`);
      await this.fireUntil(at);
    }
    if (failed) throw error;
    return value as T;
  }

  /** Fire timers until none are left (or `maxMs` of fake time passed). */
  async runAll(maxMs = 24 * 3600_000): Promise<void> {
    const limit = this.t + maxMs;
    for (;;) {
      const at = this.nextAt();
      if (at === undefined || at > limit) return;
      await this.advance(at - this.t);
    }
  }
}
