/**
 * The context engine (engine.md §2): one Session's ReAct loop over a stateful model and an Environment.
 * This class is the host API and the run lifecycle — one Task or compaction at a time, the host signal
 * linked in, and if the consumer walks away mid-run the work stops and what must be resent is kept. The
 * Task itself lives in task.ts (run-start, request-round, after-turn), compaction in compaction-entry.ts,
 * the shared state in engine-core.ts. Every streamed message is traced as it is yielded.
 */
import type { BackgroundNotice } from '../interfaces';
import type { OmniMessage, TokenCounts } from '../omnimessage/types';
import { buildCarryOver } from './carry-over';
import type { Compactability } from './compaction';
import { manualCompaction } from './compaction-entry';
import { EngineCore } from './engine-core';
import type { ContextEngineOptions, EngineRunOptions, EngineStatus } from './engine-options';
import { ReservedStream, SessionBusyError } from './reserved-stream';
import { runTask } from './task';

export type { ContextEngineOptions, EngineRunOptions, EngineStatus } from './engine-options';
export { userAbortReason } from './abort-reason';

export class ContextEngine {
  private readonly core: EngineCore;
  private readonly idleListeners = new Set<(notices: BackgroundNotice[]) => void>();
  private readonly unsubscribe?: () => void;
  private state: EngineStatus = 'idle';
  private current: AbortController | null = null;
  private disposed = false;

  constructor(private readonly opts: ContextEngineOptions) {
    this.core = new EngineCore(opts);
    this.unsubscribe = opts.environment.onBackgroundNotice?.((n) => this.onNotice(n));
  }

  get status(): EngineStatus {
    return this.state;
  }

  /** Session token totals so far (kept across compaction). */
  get tokens(): TokenCounts {
    return { ...this.core.sessionTokens };
  }

  /** Notices waiting for the next input assembly. */
  get queuedNotices(): number {
    return this.core.notices.length;
  }

  // ------------------------------------------------------------------ host API

  /** One Task. Throws `SessionBusyError` synchronously while a Task or compaction runs. */
  run(newMessages: OmniMessage[], opts: EngineRunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
    this.reserve('running');
    this.core.steering.open();
    return new ReservedStream(
      () => this.guarded((signal) => runTask(this.core, newMessages, opts, signal), opts.signal),
      () => this.release(),
    );
  }

  /** Manual compaction between Tasks; yields nothing unless `compactability()` is `ok`. */
  compact(opts: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
    this.reserve('compacting');
    return new ReservedStream(() => this.guarded((signal) => manualCompaction(this.core, signal), opts.signal), () => this.release());
  }

  compactability(): Compactability {
    return this.core.compactability();
  }

  /** Queue steering for the running Task: its id, or false when no Task runs. */
  steer(text: string, images: string[] = []): string | false {
    if (this.state !== 'running') return false;
    return this.core.steering.push(text, images);
  }

  /** Recall undelivered steering; false when it was already delivered or discarded. */
  unsteer(id: string): boolean {
    return this.core.steering.remove(id);
  }

  /** Cut the current reconnect wait short (no extra attempt); false when nothing waits. */
  skipReconnectWait(): boolean {
    const wake = this.core.skipWait;
    if (!wake) return false;
    wake();
    return true;
  }

  /** Called with the queued notices whenever notices wait while no Task runs (a host may start one). */
  onIdleNotice(listener: (notices: BackgroundNotice[]) => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }

  flush(): Promise<void> {
    return this.core.trace.flush();
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe?.();
    this.current?.abort();
    this.idleListeners.clear();
  }

  // ------------------------------------------------------------------ run lifecycle

  private reserve(status: 'running' | 'compacting'): void {
    if (this.state !== 'idle') throw new SessionBusyError(this.opts.sessionId, this.state);
    if (this.disposed) throw new Error('the session is disposed');
    this.state = status;
  }

  private release(): void {
    this.core.steering.close();
    this.state = 'idle';
    this.announceIdleNotices();
  }

  /** Links the host signal, and if the consumer stops early, stops the work and keeps what must be resent. */
  private async *guarded(
    body: (signal: AbortSignal) => AsyncGenerator<OmniMessage, void, undefined>,
    hostSignal: AbortSignal | undefined,
  ): AsyncGenerator<OmniMessage, void, undefined> {
    const ac = new AbortController();
    const onAbort = (): void => ac.abort(hostSignal?.reason);
    if (hostSignal?.aborted) ac.abort(hostSignal.reason);
    else hostSignal?.addEventListener('abort', onAbort, { once: true });
    this.current = ac;
    let finished = false;
    try {
      yield* body(ac.signal);
      finished = true;
    } finally {
      hostSignal?.removeEventListener('abort', onAbort);
      if (!finished) {
        ac.abort();
        this.salvageAtRisk();
      }
      this.core.atRisk = null;
      this.current = null;
      // The run takes no more input: steering offered while the trace flushes is refused, not queued and dropped.
      this.core.steering.close();
      await this.core.trace.flush();
      this.release();
    }
  }

  /** The consumer walked away: the attempt in flight becomes carry-over, or the input being sent. */
  private salvageAtRisk(): void {
    const risk = this.core.atRisk;
    if (risk) this.core.carryOver = risk.rec ? buildCarryOver(risk.rec) : risk.input;
  }

  // ------------------------------------------------------------------ background notices

  private onNotice(n: BackgroundNotice): void {
    this.core.notices.push(n);
    this.announceIdleNotices();
  }

  private announceIdleNotices(): void {
    if (this.state !== 'idle' || this.core.notices.length === 0 || this.disposed) return;
    const snapshot = [...this.core.notices];
    for (const l of [...this.idleListeners]) {
      try {
        l(snapshot);
      } catch {
        // A host listener's failure must not reach the Environment that reported the notice.
      }
    }
  }
}
