/**
 * A hand-driven clock for tests of the fake Telegram server: time moves only when the test calls
 * `advance`, so flood-control windows, draft lifetimes and callback answer windows are deterministic.
 */
import type { FakeClock } from './telegram-types';

export class ManualClock implements FakeClock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }
}
