/**
 * FakeClock: a deterministic `Clock` for tests. Time moves only when the test says so; `advance(ms)` fires
 * due timers in time order (ties in creation order) and lets promise chains run between timers, so async
 * code driven by the clock (writers, governors, retries) behaves as under real time, only instantly.
 */
import type { Clock, TimerHandle } from '../../src/adapters/contract/clock';
import { MinHeap } from '../../src/adapters/render/min-heap';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * Let queued promise callbacks (and whatever they chain) run; no real time passes. A few loop turns by
 * default: the SQLite store commits at a turn's end, so a chain of store writes takes a turn per write.
 */
export async function drainMicrotasks(rounds = 4): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.id < b.id);

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  /** Min-heap by (at, id); cancelled timers are skipped lazily. */
  private heap = new MinHeap<Timer>(before);
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
    this.heap.push(timer);
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
    return this.heap.peek()?.at;
  }

  private dropCancelled(): void {
    for (let t = this.heap.peek(); t && !this.live.has(t.id); t = this.heap.peek()) this.heap.pop();
  }

  private popDue(limit: number): Timer | undefined {
    this.dropCancelled();
    const next = this.heap.peek();
    if (!next || next.at > limit) return undefined;
    const t = this.heap.pop()!;
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
