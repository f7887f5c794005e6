/**
 * A token bucket on an injected timeline: `burst` at most, refilled at count/perMs; a pause (retry_after)
 * blocks it until the pause ends and then yields exactly one token, refilling from there (a slow bucket,
 * e.g. a Telegram group's 20/min, is not drained beyond the pause). During a governor pass it also carries a plan:
 * its trajectory with the tokens promised to waiting finals, kept incrementally so each check is O(1);
 * taking a token now is allowed only if every promise survives (`slack`).
 */
import type { RateLimit } from '../contract/rate';

/** Tolerance for floating-point token arithmetic (a millionth of a token). */
export const EPS = 1e-6;

export class TokenBucket {
  private tokens: number;
  /** Time at which `tokens` was measured; may lie in the future while paused. */
  private stamp: number;
  /** Nothing is available before this (a pause). */
  private blockedUntil = -Infinity;
  private pass = -1;
  private planNow = 0;
  private planT = 0;
  private planLvl = 0;
  private slack = Infinity;

  constructor(readonly key: string, public limit: RateLimit, now: number) {
    if (!(limit.count > 0 && limit.perMs > 0 && limit.burst >= 1)) throw new Error(`rate limit for ${key}: count and perMs must be > 0 and burst ≥ 1`);
    this.tokens = limit.burst;
    this.stamp = now;
  }

  get rate(): number {
    return this.limit.count / this.limit.perMs;
  }

  level(t: number): number {
    if (t < this.blockedUntil) return 0;
    if (t <= this.stamp) return Math.min(this.tokens, this.limit.burst);
    return Math.min(this.limit.burst, this.tokens + this.rate * (t - this.stamp));
  }

  take(now: number): void {
    this.tokens = this.level(now) - 1;
    this.stamp = Math.max(now, this.stamp);
  }

  /** Nothing before `until`, then one token (the platform's window has passed), refilling from there. */
  pause(now: number, until: number): void {
    if (until <= now || this.pausedUntil(now) >= until) return;
    this.blockedUntil = until;
    this.tokens = 1;
    this.stamp = until;
  }

  /** When a paused bucket yields its next token (≤ now when not paused). */
  pausedUntil(now: number): number {
    if (this.level(now) >= 1 - EPS) return now;
    const from = Math.max(this.stamp, this.blockedUntil);
    return from + Math.max(0, 1 - this.level(from)) / this.rate;
  }

  /** Idle and full: safe to forget (a new bucket starts full). */
  isIdle(now: number): boolean {
    return this.level(now) >= this.limit.burst - EPS;
  }

  // ---- plan of one scheduling pass

  /** Start (once per pass id) planning from the bucket's real state at `now`. */
  plan(pass: number, now: number): void {
    if (this.pass === pass) return;
    this.pass = pass;
    this.planNow = now;
    this.planT = Math.max(now, this.stamp);
    this.planLvl = this.level(this.planT);
    this.slack = Infinity;
  }

  canTakeNow(): boolean {
    return this.level(this.planNow) >= 1 - EPS && this.slack >= 1 - EPS;
  }

  takeNow(): void {
    this.take(this.planNow);
    // one token fewer everywhere ahead (conservative where the cap would have absorbed it)
    this.planLvl -= 1;
    this.slack -= 1;
  }

  /** Earliest time a further token is free, after every promise of this pass. */
  earliest(): number {
    return this.planLvl >= 1 - EPS ? this.planT : this.planT + (1 - this.planLvl) / this.rate;
  }

  /** Promise one token at `at` (≥ every earlier promise of this pass). */
  reserve(at: number): void {
    if (at > this.planT) {
      this.planLvl = Math.min(this.limit.burst, this.planLvl + this.rate * (at - this.planT));
      this.planT = at;
    }
    this.slack = Math.min(this.slack, this.planLvl - 1);
    this.planLvl -= 1;
  }
}
