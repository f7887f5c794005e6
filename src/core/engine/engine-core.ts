/**
 * One Session's engine state and the primitives every phase of a Task shares (engine.md §2): the model
 * object and its factory, carry-over and pending summary, context counters, queued notices and steering,
 * and what to salvage if the consumer walks away mid-run. The phases (run-start, request-round,
 * after-turn, compaction-entry) are functions over this state; `ContextEngine` owns the lifecycle.
 * Every streamed message goes through `emit`, so stream order is trace order.
 */
import * as b from '../omnimessage/builders';
import { addCounts, zeroCounts } from '../omnimessage/tokens';
import type { BackgroundNotice, EnvironmentInterface, LLMInterface, LLMOutcome, ModelFactory, ToolDefinition } from '../interfaces';
import type { OmniMessage, RetryDetail, TokenCounts } from '../omnimessage/types';
import type { CommandPolicy } from './approval';
import type { TurnRecord } from './carry-over';
import { anySignal, systemClock, type Clock } from './clock';
import { compactabilityOf, resolveCompaction, type Compactability, type CompactionSettings } from './compaction';
import type { ContextEngineOptions } from './engine-options';
import { noticeMessage } from './notices';
import { isRetryable, MAX_RECONNECTS, reconnectDelayMs } from './reconnect';
import { SteeringQueue } from './steering';
import { EngineTrace } from './trace-sink';

/** What to carry over if the consumer walks away mid-run: the input being sent, or the attempt in flight. */
export interface AtRisk {
  input: OmniMessage[];
  rec?: TurnRecord;
}

export class EngineCore {
  readonly env: EnvironmentInterface;
  readonly clock: Clock;
  readonly trace: EngineTrace;
  readonly compaction?: CompactionSettings;
  readonly maxTurns: number;
  readonly vision: boolean;
  readonly commandPolicy: CommandPolicy | undefined;
  /** Builds the model factory once the tool list is known. */
  readonly modelsFor: (tools: ToolDefinition[]) => ModelFactory;

  models?: ModelFactory;
  llm?: LLMInterface;
  /** Resumed history, handed to the first model object and then dropped. */
  history?: OmniMessage[];

  carryOver: OmniMessage[] = [];
  pendingSummary: OmniMessage | null = null;
  turnsInContext = 0;
  lastRequestTotal = 0;
  sessionTokens: TokenCounts = zeroCounts();
  fromCompaction = false;

  readonly steering = new SteeringQueue();
  notices: BackgroundNotice[] = [];
  /** Ends the current reconnect wait early; null when nothing waits. */
  skipWait: (() => void) | null = null;
  atRisk: AtRisk | null = null;

  constructor(opts: ContextEngineOptions) {
    this.env = opts.environment;
    this.clock = opts.clock ?? systemClock;
    this.maxTurns = opts.maxTurns ?? -1;
    this.vision = opts.vision ?? true;
    this.commandPolicy = opts.commandPolicy;
    this.modelsFor = opts.models;
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
  }

  compactability(): Compactability {
    return compactabilityOf(this.compaction !== undefined, this.turnsInContext, this.fromCompaction);
  }

  /** Trace a message that is also streamed, and hand it back for the `yield`. */
  emit(msg: OmniMessage): OmniMessage {
    this.trace.write(msg);
    return msg;
  }

  /** A terminal branch: what the next run must resend, and nothing left to salvage. */
  settle(carry: OmniMessage[]): void {
    this.carryOver = carry;
    this.atRisk = null;
  }

  /** Ends the Task with an `abort` event, keeping `carry` for the next run. */
  async *abortRun(carry: OmniMessage[], reason: string): AsyncGenerator<OmniMessage, void, undefined> {
    this.settle(carry);
    yield this.emit(b.abort(reason));
  }

  /** Session totals are the engine's (they outlive model objects): `session` = previous total + this request. */
  observeUsage(msg: OmniMessage, countsTurn: boolean): OmniMessage {
    if (msg.type !== 'event_msg' || msg.payload.type !== 'token_usage') return msg;
    const req = { ...zeroCounts(), ...msg.payload.request };
    this.sessionTokens = addCounts(this.sessionTokens, req);
    this.lastRequestTotal = req.total;
    if (countsTurn) this.turnsInContext++;
    return { ...msg, payload: { ...msg.payload, session: { ...this.sessionTokens } } };
  }

  /** attempt / retry_in_ms / error_message of an attempt's `request_end` (or `compaction_end`). */
  endDetail(o: LLMOutcome, reconnects: number, signal: AbortSignal): RetryDetail {
    const d: RetryDetail = {};
    if (o.errorMessage !== undefined) d.error_message = o.errorMessage;
    if (o.status !== 'completed' || reconnects > 0) d.attempt = reconnects + 1;
    if (isRetryable(o) && reconnects < MAX_RECONNECTS && !signal.aborted) d.retry_in_ms = reconnectDelayMs(reconnects + 1);
    return d;
  }

  /** Waits before retry n; false when the host aborted meanwhile. `skipWait` ends the wait early. */
  async backoff(n: number, signal: AbortSignal): Promise<boolean> {
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

  /** Queued background notices as user texts, streamed and traced. */
  async *deliverNotices(): AsyncGenerator<OmniMessage, OmniMessage[], undefined> {
    if (this.notices.length === 0) return [];
    const msgs = this.notices.map(noticeMessage);
    this.notices = [];
    for (const m of msgs) yield this.emit(m);
    return msgs;
  }

  /** Undelivered steering as user texts, streamed and traced. */
  async *deliverSteering(): AsyncGenerator<OmniMessage, OmniMessage[], undefined> {
    const msgs = this.steering.drain(this.vision);
    for (const m of msgs) yield this.emit(m);
    return msgs;
  }

  /** What joins the next input at every assembly: notices first, then steering (engine.md §2.8). */
  async *joinQueued(): AsyncGenerator<OmniMessage, OmniMessage[], undefined> {
    return [...(yield* this.deliverNotices()), ...(yield* this.deliverSteering())];
  }

  /** After a compaction: a new model object, counters reset (session tokens kept), trace rotated. */
  startNewContext(): void {
    this.llm = (this.models as ModelFactory).create();
    this.turnsInContext = 0;
    this.lastRequestTotal = 0;
    this.fromCompaction = true;
    this.trace.rotateBeforeNextWrite();
  }
}
