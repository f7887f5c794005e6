/**
 * Time as a dependency: every writer, governor and timer in the adapters takes a `Clock` so tests drive
 * time with a fake (test/helpers/fake-clock.ts) instead of sleeping. `systemClock` is the real one.
 * Handles are opaque: only the clock that made a handle may clear it.
 */

/** Whatever the clock's setTimeout returned; pass it back to the same clock's clearTimeout. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Resolves after `ms` on the given clock (0 or less resolves on the next timer turn). */
export function delay(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimeout(resolve, Math.max(0, ms));
  });
}
