/**
 * Event-driven waiting for the fake servers: `waitFor` re-checks a predicate each time the server
 * emits 'change' (no polling, no sleeps), resolves with the predicate's first truthy value, and rejects
 * when the predicate throws or after `timeoutMs` (with the server's own context, e.g. its last calls).
 * `rejectAll` ends every pending wait, so a stopped server never leaves a test hanging.
 */
import type { EventEmitter } from 'node:events';

/** A condition to wait for: any truthy value satisfies it and becomes the result. */
export type WaitPredicate<T> = () => T | undefined | null | false;

export class ChangeWaiter {
  private readonly pending = new Set<(err: Error) => void>();

  /** `context` is appended to timeout messages, so a failing wait says what the server last saw. */
  constructor(
    private readonly source: EventEmitter,
    private readonly context: () => string,
  ) {}

  waitFor<T>(predicate: WaitPredicate<T>, timeoutMs: number, label: string): Promise<T> {
    const first = predicate();
    if (first) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.source.off('change', check);
        this.pending.delete(fail);
      };
      const fail = (err: Error): void => {
        cleanup();
        reject(err);
      };
      const check = (): void => {
        let v: T | undefined | null | false;
        try {
          v = predicate();
        } catch (err) {
          fail(err as Error);
          return;
        }
        if (v) {
          cleanup();
          resolve(v);
        }
      };
      const timer = setTimeout(() => fail(new Error(`waitFor(${label}) timed out after ${timeoutMs} ms; ${this.context()}`)), timeoutMs);
      this.pending.add(fail);
      this.source.on('change', check);
    });
  }

  /** Rejects every wait still pending with `err`. */
  rejectAll(err: Error): void {
    for (const fail of [...this.pending]) fail(err);
  }
}
