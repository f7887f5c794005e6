/**
 * A message stream whose Session slot is taken when it is created, not when it is first iterated: the
 * second concurrent `run()` is refused synchronously, and a stream that is dropped with `return()` before
 * its first `next()` still gives the slot back. `SessionBusyError` is the one exception the engine API
 * throws, at the call site, before any message exists.
 */
import type { OmniMessage } from '../omnimessage/types';

export class SessionBusyError extends Error {
  readonly code = 'session_busy';
  constructor(
    readonly sessionId: string | undefined,
    readonly status: 'running' | 'compacting',
  ) {
    super(`${sessionId ? `session ${sessionId}` : 'the session'} is busy (${status}): one Task or compaction at a time`);
    this.name = 'SessionBusyError';
  }
}

export class ReservedStream implements AsyncGenerator<OmniMessage, void, undefined> {
  private inner?: AsyncGenerator<OmniMessage, void, undefined>;
  private released = false;

  /** `start` builds the real generator on the first `next()`; it must call `release` in its own finally. */
  constructor(
    private readonly start: () => AsyncGenerator<OmniMessage, void, undefined>,
    private readonly release: () => void,
  ) {}

  next(): Promise<IteratorResult<OmniMessage, void>> {
    if (this.released) return Promise.resolve({ done: true, value: undefined });
    if (!this.inner) this.inner = this.start();
    return this.inner.next();
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<OmniMessage, void>> {
    if (!this.inner) {
      this.drop();
      return Promise.resolve({ done: true, value: undefined });
    }
    return this.inner.return(value as void);
  }

  throw(e?: unknown): Promise<IteratorResult<OmniMessage, void>> {
    if (!this.inner) {
      this.drop();
      return Promise.reject(e);
    }
    return this.inner.throw(e);
  }

  [Symbol.asyncIterator](): AsyncGenerator<OmniMessage, void, undefined> {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  private drop(): void {
    if (this.released) return;
    this.released = true;
    this.release();
  }
}
