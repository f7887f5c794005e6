/**
 * Long polling for the fake: a getUpdates with `timeout` > 0 and nothing queued is held until an update
 * arrives (answered on the next tick, so a burst of injections lands in one batch), the timeout passes,
 * or the client hangs up. One poller per token: a second concurrent request either gets 409
 * ('reject-newcomer') or ends the held one with 409 ('terminate-pending', the real server's behaviour).
 * A held request whose client has just aborted (grammY's bot.stop) is not a conflict: the newcomer waits
 * up to `graceMs` for the hang-up to be seen before deciding.
 */
import { TgApiError, tgErrors } from './telegram-errors';
import type { TgUpdate } from './telegram-types';
import type { UpdateQueue } from './telegram-updates';

export type PollConflictPolicy = 'reject-newcomer' | 'terminate-pending';

/** The HTTP client behind a call: whether it hung up, and a hook for when it does. */
export interface CallClient {
  readonly gone: boolean;
  onGone(cb: () => void): void;
}

export interface PollRequest {
  offset?: number;
  limit: number;
  timeoutSeconds: number;
  allowedUpdates?: string[];
}

interface Held {
  client: CallClient;
  limit: number;
  finish(result: TgUpdate[] | TgApiError): void;
  released: Array<() => void>;
}

export class LongPoller {
  private held: Held | undefined;
  private flushScheduled = false;
  private timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly queue: UpdateQueue,
    private readonly policy: PollConflictPolicy,
    private readonly graceMs: number,
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** True while a long-poll request is being held open. */
  get polling(): boolean {
    return this.held !== undefined;
  }

  async getUpdates(req: PollRequest, client: CallClient): Promise<TgUpdate[]> {
    while (this.held && !this.held.client.gone) {
      if (this.policy === 'terminate-pending') {
        this.held.finish(tgErrors.pollConflict());
        break;
      }
      const released = await this.waitReleased(this.held);
      if (!released) throw tgErrors.pollConflict();
    }
    if (req.allowedUpdates !== undefined) this.queue.setAllowed(req.allowedUpdates);
    if (req.offset !== undefined && req.offset !== 0) this.queue.applyOffset(req.offset);
    const ready = this.queue.peek(req.limit);
    if (ready.length > 0 || req.timeoutSeconds <= 0 || client.gone || this.closed) return ready;
    return new Promise<TgUpdate[]>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => entry.finish(this.queue.peek(req.limit)), req.timeoutSeconds * 1000);
      this.timers.add(timer);
      const entry: Held = {
        client,
        limit: req.limit,
        released: [],
        finish: (result) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          this.timers.delete(timer);
          if (this.held === entry) this.held = undefined;
          for (const cb of entry.released.splice(0)) cb();
          this.onChange();
          if (result instanceof TgApiError) reject(result);
          else resolve(result);
        },
      };
      this.held = entry;
      client.onGone(() => entry.finish([]));
      this.onChange();
    });
  }

  /** Call after queueing an update: a held request is answered on the next tick. */
  notify(): void {
    if (!this.held || this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const h = this.held;
      if (!h) return;
      const ready = this.queue.peek(h.limit);
      if (ready.length > 0) h.finish(ready);
    });
  }

  /** Ends any held request (with an empty batch) and refuses to hold new ones. */
  close(): void {
    this.closed = true;
    this.held?.finish([]);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Answers a held request with the given error (used when a webhook is set meanwhile). */
  abortHeld(error: TgApiError): void {
    this.held?.finish(error);
  }

  /** Resolves true once `h` is released or its client hangs up, false after the grace period. */
  private waitReleased(h: Held): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (v: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve(v);
      };
      const timer = setTimeout(() => settle(this.held !== h || h.client.gone), this.graceMs);
      this.timers.add(timer);
      h.released.push(() => settle(true));
      h.client.onGone(() => settle(true));
    });
  }
}
