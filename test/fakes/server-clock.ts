/**
 * The time source every fake platform server reads (epoch ms). `realClock` is wall time;
 * `ManualClock` moves only when a test calls `advance`, so rate-limit windows, lifetimes, deadlines
 * and message dates in the fakes are exact. Each platform's types and clock files re-export them.
 */

export interface FakeClock {
  now(): number;
}

export const realClock: FakeClock = { now: () => Date.now() };

export class ManualClock implements FakeClock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }
}
