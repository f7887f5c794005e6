/**
 * Gives memory back when the gateway goes quiet. A burst of conversations leaves garbage that V8 only
 * collects when it next needs room, so an idle gateway keeps the RSS of its busiest minute. Once nothing
 * has arrived for `quietMs` and no Task (or title request) has run in that time, one full collection runs
 * (at most one per ten quiet times, so a chat writing every few seconds does not pay a collection each
 * time), then none until activity resumes — except one settling collection `SETTLE_MS` later, still quiet,
 * when the burst left the young generation grown: V8 sizes it down only at a collection whose last five
 * seconds allocated little, which the first collection, right after the burst, never is.
 * `activity()` is cheap: it stamps a time and arms one timer at most.
 */
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { Logger } from '../logger';
import type { HeapCollector } from './v8-gc';

/** Collections are at least this many quiet times apart. */
export const INTERVAL_QUIETS = 10;
/** The first collection → the settling one: past V8's five-second window of allocation throughput. */
export const SETTLE_MS = 6_000;

export interface IdleCollectorOptions {
  clock: Clock;
  logger: Pick<Logger, 'debug'>;
  /** Quiet time before collecting; 0 turns the collector off. */
  quietMs: number;
  /** True while a Task or its follow-up work runs: the quiet time starts over once it has ended. */
  busy: () => boolean;
  heap: HeapCollector;
  heapUsed: () => number;
  /** After each collection, with how long it held the event loop. */
  collected?: (ms: number) => void;
}

export class IdleCollector {
  private timer?: TimerHandle;
  private lastActivity = -Infinity;
  private lastCollect = -Infinity;
  /** A settling collection is due SETTLE_MS after the last one (which left the young generation grown). */
  private settling = false;
  private stopped = false;

  constructor(private readonly o: IdleCollectorOptions) {}

  /** Something happened (a message, a command, a press, a start): collect once it has been quiet. */
  activity(): void {
    if (this.o.quietMs <= 0 || this.stopped) return;
    this.lastActivity = this.o.clock.now();
    this.timer ??= this.o.clock.setTimeout(() => this.due(), this.o.quietMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private due(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const now = this.o.clock.now();
    if (this.settling) {
      if (this.lastActivity <= this.lastCollect && !this.o.busy()) {
        const wait = this.lastCollect + SETTLE_MS - now;
        if (wait > 0) return this.arm(wait);
        this.settling = false;
        return this.collect(now, false);
      }
      // New work since: it will leave garbage of its own, and the next quiet collection sees to both.
      this.settling = false;
    }
    const wait = Math.max(this.lastActivity + this.o.quietMs, this.lastCollect + INTERVAL_QUIETS * this.o.quietMs) - now;
    if (wait > 0) return this.arm(wait);
    if (this.o.busy()) {
      // Work that ends now leaves garbage too: quiet is counted from the last time it was seen.
      this.lastActivity = now;
      return this.arm(this.o.quietMs);
    }
    this.collect(now, true);
  }

  private arm(ms: number): void {
    this.timer = this.o.clock.setTimeout(() => this.due(), ms);
  }

  private collect(now: number, maySettle: boolean): void {
    const before = this.o.heapUsed();
    this.o.heap.collect();
    this.lastCollect = this.o.clock.now();
    const ms = this.lastCollect - now;
    this.o.collected?.(ms);
    const settle = maySettle && this.o.heap.youngGenerationGrown();
    this.o.logger.debug({ heapBefore: before, heapAfter: this.o.heapUsed(), ms, settle }, 'idle: garbage collected');
    if (settle) {
      this.settling = true;
      this.arm(SETTLE_MS);
    }
  }
}
