/**
 * Small async primitives the Environment builds on: an unbounded FIFO whose `next()` can be raced
 * without losing items, an abortable sleep and a "wait for change" latch. None of them reject.
 */
import { systemClock } from '../engine/clock';

/** FIFO with one consumer. `next()` returns the same pending promise until an item arrives. */
export class AsyncQueue<T> {
  private items: T[] = [];
  private waiter: { resolve: (v: T) => void; promise: Promise<T> } | null = null;

  push(item: T): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve(item);
    } else {
      this.items.push(item);
    }
  }

  next(): Promise<T> {
    if (this.waiter) return this.waiter.promise;
    if (this.items.length) return Promise.resolve(this.items.shift() as T);
    let resolve!: (v: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    this.waiter = { resolve, promise };
    return promise;
  }
}

/** Resolves after `ms` or as soon as `signal` aborts (whichever first): the engine clock's sleep. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => systemClock.sleep(ms, signal);

/**
 * A level-triggered "something changed" latch: `wait()` resolves on the next `notify()`,
 * after `ms`, or on abort. Producers call `notify()` whenever state a waiter reads has changed.
 */
export class ChangeLatch {
  private waiters = new Set<() => void>();

  notify(): void {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      if (Number.isFinite(ms)) timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
