/**
 * Time as the engine sees it: `now()` and an abortable `sleep()`, injected so tests run the reconnect
 * ladder in milliseconds. `sleep` never rejects: it resolves when the time has passed or as soon as the
 * signal aborts, and the caller checks the signal to learn which happened.
 */

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    });
  },
};

/**
 * An AbortSignal that fires when any input fires, carrying that input's reason (Node 20.0 lacks a stable
 * `AbortSignal.any`), plus its detach function.
 */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): { signal: AbortSignal; detach: () => void } {
  const ac = new AbortController();
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = function (this: AbortSignal): void {
    ac.abort(this.reason);
  };
  for (const s of live) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: ac.signal, detach: () => live.forEach((s) => s.removeEventListener('abort', onAbort)) };
}

/** Resolves with the promise's value, or with `undefined` as soon as the signal aborts (the promise is left to settle alone). */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
