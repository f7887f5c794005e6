/**
 * What every fake platform server gives the test side, whatever the platform: the call log
 * (`calls`, `callsTo`, `callCount`), event-driven `waitFor` / `waitForCall`, forced faults
 * (`failNext`, `clearFaults`) and the rate-limit switches. A platform supplies its call record, fault
 * spec and limiter, and signals every state change with `changed()` (the 'change' event waits watch).
 */
import { EventEmitter } from 'node:events';
import { ChangeWaiter, type WaitPredicate } from './fake-waiter';
import type { KeyedCallLog, LoggedCall } from './keyed-call-log';

/** The part of a platform's fault rules the test side drives. */
export interface FaultControls<Spec> {
  add(spec: Spec): void;
  clear(): void;
}

/** The part of a platform's rate limiter the test side drives; the limits themselves are the platform's. */
export interface RateLimitControls<Options> {
  setEnabled(on: boolean): void;
  configure(options: Options): void;
}

export abstract class FakeServerBase<Call extends LoggedCall, Fault, LimitOptions> extends EventEmitter {
  protected abstract readonly log: KeyedCallLog<Call>;
  protected abstract readonly faults: FaultControls<Fault>;
  protected abstract readonly limiter: RateLimitControls<LimitOptions>;
  protected readonly waiter = new ChangeWaiter(this, () => `recent calls: ${this.log.summary(8)}`);

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  /** Every call answered, in order (empty when `recordCalls` is off). */
  get calls(): readonly Call[] {
    return this.log.all;
  }

  /** Calls of one method (Discord: route name), oldest first. */
  callsTo(key: string): Call[] {
    return this.log.to(key);
  }

  /** How many calls of one method (Discord: route name) were answered; kept even when `recordCalls` is off. */
  callCount(key: string): number {
    return this.log.count(key);
  }

  /**
   * Resolves with the predicate's first truthy value, re-checking after every change the server
   * signals (calls, injections, deliveries, gateway frames); rejects after `timeoutMs` with the last
   * calls for context, or when the server stops.
   */
  waitFor<T>(predicate: WaitPredicate<T>, timeoutMs = 5000, label = 'condition'): Promise<T> {
    return this.waiter.waitFor(predicate, timeoutMs, label);
  }

  /** The first call of `key` (already logged or from now on) that satisfies `match`. */
  waitForCall(key: string, match: (c: Call) => boolean = () => true, timeoutMs = 5000): Promise<Call> {
    return this.waitFor(() => this.callsTo(key).find(match), timeoutMs, `call ${key}`);
  }

  /** The next `times` matching calls (default 1) answer the spec's outcome instead of the normal one. */
  failNext(spec: Fault): void {
    this.faults.add(spec);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setRateLimitsEnabled(on: boolean): void {
    this.limiter.setEnabled(on);
  }

  /** New rate-limit settings; spent budgets are forgotten. */
  configureRateLimits(options: LimitOptions): void {
    this.limiter.configure(options);
  }

  /** Wakes every pending `waitFor` to re-check its predicate. */
  protected changed(): void {
    this.emit('change');
  }
}
