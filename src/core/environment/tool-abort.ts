/**
 * One abort signal for one tool call (engine.md §4.2): the user's signal and `timeoutMs` (≤0 = none)
 * merged. Both causes are recorded — the user's abort outranks a timeout that fired first — but only the
 * first aborts the tool and reports the interruption. Once the tool settled, later causes are ignored.
 */
export class ToolAbort {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onUserAbort = (): void => this.interrupt('user');
  private toolSettled = false;
  private user = false;
  private timeout = false;

  /** `onInterrupt` runs once, when the first cause aborts the tool. */
  constructor(
    private readonly userSignal: AbortSignal | undefined,
    private readonly timeoutMs: number,
    private readonly onInterrupt: () => void,
  ) {
    this.timer = timeoutMs > 0 ? setTimeout(() => this.interrupt('timeout'), timeoutMs) : undefined;
    if (userSignal?.aborted) this.interrupt('user');
    else userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
  }

  get userAborted(): boolean {
    return this.user;
  }

  get timedOut(): boolean {
    return this.timeout;
  }

  /** The signal the tool runs under. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The tool body returned or threw: nothing can interrupt it any more. */
  markSettled(): void {
    this.toolSettled = true;
  }

  /** Stops the timer and the listener; a tool still running is aborted (its consumer stopped early). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
    if (!this.toolSettled) this.controller.abort(new Error('tool call closed'));
  }

  private interrupt(why: 'user' | 'timeout'): void {
    if (this.toolSettled) return;
    const first = !this.user && !this.timeout;
    if (why === 'user') this.user = true;
    else this.timeout = true;
    if (!first) return;
    this.controller.abort(why === 'user' ? this.userSignal?.reason : new Error(`tool timeout after ${this.timeoutMs}ms`));
    this.onInterrupt();
  }
}
