/**
 * The context engine (engine.md §2): one Session's ReAct loop over a stateful model and an Environment.
 * `run()` is a Task: input assembly (summary, carry-over, new messages, queued notices), bootstrap on the
 * first run, turns with in-run reconnects, compaction checks, steering and notices joined at every input
 * assembly, `max_turns`, abort and carry-over. Every streamed message is traced as it is yielded, so
 * stream order is trace order; model-only inputs (carry-over, retries) are never traced.
 */
import * as b from '../omnimessage/builders';
import { addCounts, zeroCounts } from '../omnimessage/tokens';
import type {
  ApproveFn, BackgroundNotice, EnvironmentInterface, LLMInterface, LLMOutcome, ModelFactory, RunOptions,
  ThinkingLevel, ToolDefinition,
} from '../interfaces';
import type { CompactionReason, OmniMessage, RetryDetail, SessionMetaMessage, TokenCounts } from '../omnimessage/types';
import { decide, withPolicy, type CommandPolicy } from './approval';
import { buildCarryOver, newTurnRecord, orderedOutputs, withRetriedBlock, type TurnRecord } from './carry-over';
import { anySignal, systemClock, type Clock } from './clock';
import {
  compactabilityOf, compactionTrigger, resolveCompaction, type Compactability, type CompactionConfig, type CompactionSettings,
} from './compaction';
import { noticeMessage } from './notices';
import { exhaustionReason, isRetryable, MAX_RECONNECTS, reconnectDelayMs } from './reconnect';
import type { ResumeState } from './replay';
import { ReservedStream, SessionBusyError } from './reserved-stream';
import { SteeringQueue } from './steering';
import { EngineTrace, type TraceSink } from './trace-sink';
import { downgradeGoalMessage } from './transcript';
import { summarizeContext, type CompactionHost, type CompactionResult } from './summarize';
import { errorText, startTurn, type TurnContext } from './turn';

export type EngineStatus = 'idle' | 'running' | 'compacting';

export interface ContextEngineOptions {
  environment: EnvironmentInterface;
  /** Builds the Session's model factory once the tool list is known (first run of this runtime). */
  models: (tools: ToolDefinition[]) => ModelFactory;
  trace?: TraceSink;
  sessionMeta?: SessionMetaMessage;
  /** A new session: `sessionMeta` is the trace's first record. */
  metaFirst?: boolean;
  /** Requests per Task; ≤0 = unlimited. */
  maxTurns?: number;
  /** Absent = compaction unsupported. */
  compaction?: CompactionConfig;
  contextWindow?: number | string;
  /** Whether steering images go to the model as images (else as path lines). Default true. */
  vision?: boolean;
  clock?: Clock;
  commandPolicy?: CommandPolicy;
  resume?: ResumeState;
  /** Used in SessionBusyError messages. */
  sessionId?: string;
}

export type EngineRunOptions = RunOptions;

const isOutput = (m: OmniMessage): boolean => m.type === 'model_msg' && m.payload.type === 'tool_call_output';

export class ContextEngine {
  private readonly env: EnvironmentInterface;
  private readonly clock: Clock;
  private readonly trace: EngineTrace;
  private readonly compaction?: CompactionSettings;
  private readonly maxTurns: number;
  private readonly vision: boolean;
  private models?: ModelFactory;
  private llm?: LLMInterface;
  private history?: OmniMessage[];

  private carryOver: OmniMessage[] = [];
  private pendingSummary: OmniMessage | null = null;
  private turnsInContext = 0;
  private lastRequestTotal = 0;
  private sessionTokens: TokenCounts = zeroCounts();
  private fromCompaction = false;

  private readonly steering = new SteeringQueue();
  private notices: BackgroundNotice[] = [];
  private readonly idleListeners = new Set<(notices: BackgroundNotice[]) => void>();
  private readonly unsubscribe?: () => void;
  private state: EngineStatus = 'idle';
  private current: AbortController | null = null;
  private skipWait: (() => void) | null = null;
  /** What to carry over if the consumer walks away mid-run. */
  private atRisk: { input: OmniMessage[]; rec?: TurnRecord } | null = null;
  private disposed = false;

  constructor(private readonly opts: ContextEngineOptions) {
    this.env = opts.environment;
    this.clock = opts.clock ?? systemClock;
    this.maxTurns = opts.maxTurns ?? -1;
    this.vision = opts.vision ?? true;
    if (opts.compaction) this.compaction = resolveCompaction(opts.compaction, opts.contextWindow);
    this.trace = new EngineTrace(opts.trace, opts.sessionMeta, { metaFirst: opts.metaFirst ?? false });
    const r = opts.resume;
    if (r) {
      this.history = r.history;
      this.carryOver = [...r.carryOver];
      this.pendingSummary = r.pendingSummary;
      this.turnsInContext = r.turnsInContext;
      this.lastRequestTotal = r.lastRequestTotal;
      this.sessionTokens = { ...r.sessionTokens };
      this.fromCompaction = r.fromCompaction;
      if (r.toolList) this.trace.setToolList(r.toolList);
      if (r.pendingRotation) this.trace.rotateBeforeNextWrite();
    }
    this.unsubscribe = this.env.onBackgroundNotice?.((n) => this.onNotice(n));
  }

  get status(): EngineStatus {
    return this.state;
  }

  /** Session token totals so far (kept across compaction). */
  get tokens(): TokenCounts {
    return { ...this.sessionTokens };
  }

  /** Notices waiting for the next input assembly. */
  get queuedNotices(): number {
    return this.notices.length;
  }

  // ------------------------------------------------------------------ host API

  /** One Task. Throws `SessionBusyError` synchronously while a Task or compaction runs. */
  run(newMessages: OmniMessage[], opts: EngineRunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
    this.reserve('running');
    this.steering.open();
    return new ReservedStream(() => this.guarded((signal) => this.task(newMessages, opts, signal), opts.signal), () => this.release());
  }

  /** Manual compaction between Tasks; yields nothing unless `compactability()` is `ok`. */
  compact(opts: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
    this.reserve('compacting');
    return new ReservedStream(() => this.guarded((signal) => this.manualCompaction(signal), opts.signal), () => this.release());
  }

  compactability(): Compactability {
    return compactabilityOf(this.compaction !== undefined, this.turnsInContext, this.fromCompaction);
  }

  /** Queue steering for the running Task: its id, or false when no Task runs. */
  steer(text: string, images: string[] = []): string | false {
    if (this.state !== 'running') return false;
    return this.steering.push(text, images);
  }

  /** Recall undelivered steering; false when it was already delivered or discarded. */
  unsteer(id: string): boolean {
    return this.steering.remove(id);
  }

  /** Cut the current reconnect wait short (no extra attempt); false when nothing waits. */
  skipReconnectWait(): boolean {
    const wake = this.skipWait;
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
    return this.trace.flush();
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
    this.steering.close();
    this.state = 'idle';
    this.announceIdleNotices();
  }

  /** Links the host signal, and if the consumer stops early, stops the work and keeps what must be resent. */
  private async *guarded(
    body: (signal: AbortSignal) => AsyncGenerator<OmniMessage, void, undefined>,
    hostSignal: AbortSignal | undefined,
  ): AsyncGenerator<OmniMessage, void, undefined> {
    const ac = new AbortController();
    const link = anySignal([hostSignal]);
    const onAbort = (): void => ac.abort(link.signal.reason);
    link.signal.addEventListener('abort', onAbort, { once: true });
    if (link.signal.aborted) ac.abort(link.signal.reason);
    this.current = ac;
    let finished = false;
    try {
      yield* body(ac.signal);
      finished = true;
    } finally {
      link.signal.removeEventListener('abort', onAbort);
      link.detach();
      if (!finished) {
        ac.abort();
        const risk = this.atRisk;
        if (risk) this.carryOver = risk.rec ? buildCarryOver(risk.rec) : risk.input;
      }
      this.atRisk = null;
      this.current = null;
      await this.trace.flush();
      this.release();
    }
  }

  /** A terminal branch: what the next run must resend, and nothing left to salvage. */
  private settle(carry: OmniMessage[]): void {
    this.carryOver = carry;
    this.atRisk = null;
  }

  private emit(msg: OmniMessage): OmniMessage {
    this.trace.write(msg);
    return msg;
  }

  // ------------------------------------------------------------------ the Task

  private async *task(newMessages: OmniMessage[], opts: EngineRunOptions, signal: AbortSignal): AsyncGenerator<OmniMessage, void, undefined> {
    const summary = this.pendingSummary;
    this.pendingSummary = null;
    const carry = this.carryOver.map(downgradeGoalMessage);
    this.carryOver = [];
    if (summary) this.trace.write(summary);
    for (const m of newMessages) this.trace.write(m);

    const head = [...(summary ? [summary] : []), ...carry, ...newMessages];
    this.atRisk = { input: head };
    const ready = yield* this.bootstrap(signal);
    const notices = yield* this.deliverNotices();
    const input = [...head, ...notices];
    this.atRisk = { input };
    if (!ready.ok) {
      this.settle(input);
      yield this.emit(b.abort(`llm request error: ${ready.error}`));
      return;
    }
    if (signal.aborted) {
      this.settle(input);
      yield this.emit(b.abort(userAbortReason(signal)));
      return;
    }
    if (input.length === 0) return;

    const policy = this.opts.commandPolicy;
    const passDown = withPolicy(opts.approve, policy);
    let nextInput = input;
    let requests = 0;
    for (;;) {
      if (this.maxTurns > 0 && requests >= this.maxTurns) {
        this.settle(nextInput);
        yield* this.maxTurnsNotice();
        return;
      }
      requests++;

      // One request, reconnecting in-run until it completes or the ladder gives out.
      const failed: TurnRecord[] = [];
      let attemptInput = nextInput;
      let reconnects = 0;
      let rec: TurnRecord;
      for (;;) {
        rec = newTurnRecord(attemptInput);
        this.atRisk = { input: attemptInput, rec };
        const ctx = this.turnContext(signal, opts.thinkingLevel, reconnects, passDown, (tc) => decide(tc, opts.approve, policy));
        const running = startTurn(rec, ctx);
        for (;;) {
          const item = running.queue.take() ?? (await running.queue.next());
          if (item === null) break;
          this.trace.write(item.msg);
          if (!item.traceOnly) yield item.msg;
        }
        await running.done;
        const outcome = rec.outcome ?? { status: 'failed' as const };
        if (signal.aborted || outcome.status === 'aborted') {
          this.settle(buildCarryOver(rec));
          yield this.emit(b.abort(userAbortReason(signal)));
          return;
        }
        if (outcome.status === 'completed') break;
        if (!isRetryable(outcome)) {
          this.settle(buildCarryOver(rec));
          yield this.emit(b.abort(`llm request error: ${outcome.errorMessage ?? outcome.status}`));
          return;
        }
        failed.push(rec);
        attemptInput = withRetriedBlock(nextInput, failed);
        this.atRisk = { input: attemptInput };
        if (reconnects >= MAX_RECONNECTS) {
          this.settle(attemptInput);
          yield this.emit(b.abort(exhaustionReason(outcome)));
          return;
        }
        reconnects++;
        if (!(await this.backoff(reconnects, signal))) {
          this.settle(attemptInput);
          yield this.emit(b.abort('aborted during reconnect backoff'));
          return;
        }
      }

      const outputs = orderedOutputs(rec);
      const midTask = rec.calls.length > 0;
      this.atRisk = { input: outputs };
      const reason = this.compaction ? compactionTrigger(this.compaction, this.lastRequestTotal, this.turnsInContext) : undefined;
      if (reason && this.compaction) {
        const boundary = (): boolean => !midTask && this.steering.size === 0 && this.notices.length === 0;
        if (this.compaction.mode === 'discard') {
          if (boundary()) {
            yield* this.discard(reason);
            return;
          }
        } else {
          const r = yield* this.summarize(reason, midTask ? outputs : [], signal);
          if (r.status === 'completed' && r.summary) {
            if (boundary()) {
              this.pendingSummary = r.summary;
              return;
            }
            this.trace.write(r.summary);
            this.atRisk = { input: [r.summary] };
            const joined = [...(yield* this.deliverNotices()), ...(yield* this.deliverSteering())];
            nextInput = [r.summary, ...joined];
            continue;
          }
          if (midTask) {
            this.settle(r.committed ? this.carryOver : [...this.carryOver, ...outputs]);
            yield this.emit(b.abort(r.status === 'aborted' ? 'aborted during compaction' : 'compaction failed'));
            return;
          }
          if (r.status === 'aborted') return;
        }
      }

      const stash = this.carryOver;
      this.carryOver = [];
      const joined = [...(yield* this.deliverNotices()), ...(yield* this.deliverSteering())];
      if (!midTask && joined.length === 0) {
        this.carryOver = stash;
        return;
      }
      nextInput = [...stash, ...outputs, ...joined];
    }
  }

  /** First run of this runtime: MCP connect events and the tool list, then the first model object. */
  private async *bootstrap(signal: AbortSignal): AsyncGenerator<OmniMessage, { ok: true } | { ok: false; error: string }, undefined> {
    if (this.llm) return { ok: true };
    if (this.env.connect) {
      try {
        for await (const m of this.env.connect(signal)) yield this.emit(m);
      } catch {
        // Connect failures are the Environment's to report in mcp_connect_end; the run goes on with what listed.
      }
    }
    let tools: ToolDefinition[] = [];
    try {
      tools = await this.env.listTools();
    } catch {
      tools = [];
    }
    const list = b.toolListReady(tools);
    this.trace.setToolList(list);
    yield this.emit(list);
    try {
      this.models = this.opts.models(tools);
      this.llm = this.models.create();
      if (this.history) this.llm.setHistory?.(this.history);
      this.history = undefined;
    } catch (e) {
      this.models = undefined;
      this.llm = undefined;
      return { ok: false, error: errorText(e) };
    }
    return { ok: true };
  }

  private turnContext(
    signal: AbortSignal,
    thinkingLevel: ThinkingLevel | undefined,
    reconnects: number,
    passDownApprove: ApproveFn | undefined,
    decideFn: TurnContext['decide'],
  ): TurnContext {
    const ctx: TurnContext = {
      llm: this.llm as LLMInterface,
      environment: this.env,
      signal,
      decide: decideFn,
      onUsage: (m) => this.observeUsage(m, true),
      endDetail: (o) => this.endDetail(o, reconnects, signal),
    };
    if (thinkingLevel !== undefined) ctx.thinkingLevel = thinkingLevel;
    if (passDownApprove) ctx.passDownApprove = passDownApprove;
    return ctx;
  }

  /** Session totals are the engine's (they outlive model objects): `session` = previous total + this request. */
  private observeUsage(msg: OmniMessage, countsTurn: boolean): OmniMessage {
    if (msg.type !== 'event_msg' || msg.payload.type !== 'token_usage') return msg;
    const req = { ...zeroCounts(), ...msg.payload.request };
    this.sessionTokens = addCounts(this.sessionTokens, req);
    this.lastRequestTotal = req.total;
    if (countsTurn) this.turnsInContext++;
    return { ...msg, payload: { ...msg.payload, session: { ...this.sessionTokens } } };
  }

  private endDetail(o: LLMOutcome, reconnects: number, signal: AbortSignal): RetryDetail {
    const d: RetryDetail = {};
    if (o.errorMessage !== undefined) d.error_message = o.errorMessage;
    if (o.status !== 'completed' || reconnects > 0) d.attempt = reconnects + 1;
    if (isRetryable(o) && reconnects < MAX_RECONNECTS && !signal.aborted) d.retry_in_ms = reconnectDelayMs(reconnects + 1);
    return d;
  }

  /** Waits before retry n; false when the host aborted meanwhile. `skipReconnectWait` ends the wait early. */
  private async backoff(n: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const skip = new AbortController();
    this.skipWait = () => skip.abort();
    const both = anySignal([signal, skip.signal]);
    try {
      await this.clock.sleep(reconnectDelayMs(n), both.signal);
    } finally {
      both.detach();
      this.skipWait = null;
    }
    return !signal.aborted;
  }

  private async *maxTurnsNotice(): AsyncGenerator<OmniMessage, void, undefined> {
    const text = `[reached max turns (${this.maxTurns}); stopping]`;
    yield this.emit(b.partialText('start'));
    yield this.emit(b.partialText('delta', text));
    yield this.emit(b.partialText('stop', '', 'failed'));
    yield this.emit(b.assistantText(text, { stop_reason: 'failed' }));
  }

  // ------------------------------------------------------------------ notices & steering

  private onNotice(n: BackgroundNotice): void {
    this.notices.push(n);
    this.announceIdleNotices();
  }

  private announceIdleNotices(): void {
    if (this.state !== 'idle' || this.notices.length === 0 || this.disposed) return;
    const snapshot = [...this.notices];
    for (const l of [...this.idleListeners]) {
      try {
        l(snapshot);
      } catch {
        // A host listener's failure must not reach the Environment that reported the notice.
      }
    }
  }

  private async *deliverNotices(): AsyncGenerator<OmniMessage, OmniMessage[], undefined> {
    if (this.notices.length === 0) return [];
    const msgs = this.notices.map(noticeMessage);
    this.notices = [];
    for (const m of msgs) yield this.emit(m);
    return msgs;
  }

  private async *deliverSteering(): AsyncGenerator<OmniMessage, OmniMessage[], undefined> {
    const msgs = this.steering.drain(this.vision);
    for (const m of msgs) yield this.emit(m);
    return msgs;
  }

  // ------------------------------------------------------------------ compaction

  private async *manualCompaction(signal: AbortSignal): AsyncGenerator<OmniMessage, void, undefined> {
    if (this.compactability() !== 'ok' || !this.compaction) return;
    const ready = yield* this.bootstrap(signal);
    if (!ready.ok) return;
    if (this.compaction.mode === 'discard') {
      // Outputs answer calls of the context being dropped; only self-contained text survives.
      this.carryOver = this.carryOver.filter((m) => !isOutput(m));
      yield* this.discard('manual');
      return;
    }
    const folded = this.carryOver.map(downgradeGoalMessage);
    this.carryOver = [];
    this.atRisk = { input: folded };
    const r = yield* this.summarize('manual', folded, signal);
    if (r.status === 'completed' && r.summary) this.pendingSummary = r.summary;
    else if (!r.committed) this.carryOver = [...this.carryOver, ...folded];
  }

  private async *discard(reason: CompactionReason): AsyncGenerator<OmniMessage, void, undefined> {
    yield this.emit(b.compactionBegin(reason, 'discard', this.lastRequestTotal, this.turnsInContext));
    yield this.emit(b.compactionEnd(reason, 'discard', 'completed'));
    this.carryOver = this.carryOver.filter((m) => !isOutput(m));
    this.startNewContext();
  }

  private startNewContext(): void {
    this.llm = (this.models as ModelFactory).create();
    this.turnsInContext = 0;
    this.lastRequestTotal = 0;
    this.fromCompaction = true;
    this.trace.rotateBeforeNextWrite();
  }

  /** Summarize on the old model (see summarize.ts); success opens a new context. */
  private summarize(reason: CompactionReason, folded: OmniMessage[], signal: AbortSignal): AsyncGenerator<OmniMessage, CompactionResult, undefined> {
    return summarizeContext(this.compactionHost(), reason, folded, signal);
  }

  private compactionHost(): CompactionHost {
    return {
      settings: this.compaction as CompactionSettings,
      llm: this.llm as LLMInterface,
      context: this.lastRequestTotal,
      turns: this.turnsInContext,
      emit: (m) => this.emit(m),
      traceOnly: (m) => this.trace.write(m),
      observeUsage: (m) => this.observeUsage(m, false),
      endDetail: (o, reconnects, signal) => this.endDetail(o, reconnects, signal),
      backoff: (n, signal) => this.backoff(n, signal),
      stash: (repairs) => {
        this.carryOver = [...repairs, ...this.carryOver];
      },
      startNewContext: () => this.startNewContext(),
    };
  }
}

/**
 * The abort event's reason for an interrupted run: the host's own sentence when it aborted with a string
 * reason (e.g. "gateway shutting down", which PenguinHarness renders verbatim), else the spec's
 * "aborted by user".
 */
export function userAbortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return typeof r === 'string' && r.trim() !== '' ? r : 'aborted by user';
}
