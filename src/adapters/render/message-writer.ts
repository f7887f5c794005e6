/**
 * MessageWriter: delivers one live reply to a MessageSurface as it grows (gateway.md §4). Latest snapshot
 * only, one request in flight, text composed after the governor grants (never stale), edits ≥ interval
 * apart (finals jump the queue, paced by the chat's budget), identical content skipped; the layout is
 * writer-plan's, the next step writer-steps'. Errors follow their class: retry (finals ≤ N tries, live
 * skipped), degrade (plain, re-split, post anew, no native), ignore, surface.
 */
import { delay, type Clock, type TimerHandle } from '../contract/clock';
import { asPlatformError, type PlatformError } from '../contract/errors';
import { editIntervalMs, measureLength } from '../contract/limits';
import type { RatePriority, RateScope } from '../contract/rate';
import type { MessageSurface, NativeStream } from '../contract/surface';
import type { ReplySnapshot } from './live-reply';
import type { ChunkMemo } from './markdown-chunks';
import { backoffMs, FINAL_MAX_TRIES, pauseScopes } from './retry-policy';
import { planReply, type Planned } from './writer-plan';
import { acceptAsSent, performStep } from './writer-send';
import { nextStep, type Slot, type Step, type StepOp } from './writer-steps';
import type { WriterOptions, WriterResult } from './writer-types';

export type { WriterEvent, WriterOptions, WriterResult } from './writer-types';

type Outcome = 'done' | 'skipped' | 'replan' | 'failed';

const MIN_SCALE = 0.2;

export class MessageWriter {
  private readonly surface: MessageSurface;
  private readonly clock: Clock;
  private readonly measure: (md: string) => number;
  private readonly interval: number;
  private readonly headerReserve: number;
  private readonly liveMaxWait: number;
  private readonly finalMaxTries: number;
  private readonly draftRefresh: number;
  private native?: NativeStream;

  private latest: ReplySnapshot = { header: '', answer: '' };
  /** A live state not rendered yet: rendered when the writer composes, if still the newest (`updateLazy`). */
  private deferred?: { render: () => ReplySnapshot; answerLength: number };
  private slots: Slot[] = [];
  private dirty = false;
  private finalRequested = false;
  private urgent = false;
  private running = false;
  private timer?: TimerHandle;
  private timerAt = Infinity;
  private lastSendAt = -Infinity;
  private retryAt = -Infinity;
  private rollAt = Infinity;
  private scale = 1;
  private memo?: ChunkMemo;
  private liveAbort?: AbortController;
  private failure?: PlatformError;
  private closed = false;
  private finishWaiters: Array<(r: WriterResult) => void> = [];
  private flushWaiters: Array<() => void> = [];

  constructor(private readonly opts: WriterOptions) {
    this.surface = opts.surface;
    this.clock = opts.clock;
    // planning measures the same candidate texts repeatedly (fits probes, roll check): remember the last one
    const measure = opts.measure ?? opts.surface.measure ?? ((md: string) => measureLength(md, opts.limits.lengthUnit));
    let lastMd: string | undefined;
    let lastLen = 0;
    this.measure = (md) => {
      if (md !== lastMd) {
        lastLen = measure(md);
        lastMd = md;
      }
      return lastLen;
    };
    this.interval = opts.intervalMs ?? editIntervalMs(opts.limits, opts.isDM);
    this.headerReserve = opts.headerReserve ?? Math.min(600, Math.floor(opts.limits.splitTarget / 4));
    this.liveMaxWait = opts.liveMaxWaitMs ?? 5_000;
    this.finalMaxTries = opts.finalMaxTries ?? FINAL_MAX_TRIES;
    this.draftRefresh = opts.draftRefreshMs ?? 20_000;
    this.native = opts.surface.native;
  }

  /** Platform ids of the reply's messages, in order (drafts have none). */
  get messageIds(): string[] {
    return this.slots.flatMap((s) => (s.id ? [s.id] : []));
  }

  get failed(): PlatformError | undefined {
    return this.failure;
  }

  /** New live state; cheap, never throws, coalesced with whatever is pending. */
  update(snapshot: ReplySnapshot): void {
    this.updateLazy(() => snapshot, snapshot.answer.length);
  }

  /**
   * New live state rendered only when the writer composes a request (after the interval and the governor's
   * grant): a stream's states between two edits are never rendered. `answerLength` (or close to it) decides
   * meanwhile whether to roll to a new message at once.
   */
  updateLazy(render: () => ReplySnapshot, answerLength: number): void {
    if (this.closed || this.finalRequested || this.failure) return;
    this.deferred = { render, answerLength };
    this.dirty = true;
    this.kick();
  }

  /** Flush now with final priority (e.g. before an approval card); resolves once nothing is pending. */
  flushNow(): Promise<void> {
    if (this.closed || this.failure) return Promise.resolve();
    this.urgent = true;
    this.dirty = true;
    const p = new Promise<void>((r) => this.flushWaiters.push(r));
    this.liveAbort?.abort();
    this.kick();
    return p;
  }

  /** Deliver the final snapshot (immediately, governor permitting) and settle every message. */
  finish(snapshot: ReplySnapshot): Promise<WriterResult> {
    if (this.failure) return Promise.resolve(this.result());
    if (this.closed) return Promise.resolve(this.result());
    this.latest = snapshot;
    this.deferred = undefined;
    this.finalRequested = true;
    this.dirty = true;
    const p = new Promise<WriterResult>((r) => this.finishWaiters.push(r));
    this.liveAbort?.abort();
    this.kick();
    return p;
  }

  /** Stop timers and forget pending work (the gateway gave up on this reply); a pending finish() resolves 'closed'. */
  close(): void {
    this.closed = true;
    this.clearTimer();
    this.liveAbort?.abort();
    this.settleWaiters();
  }

  private delivered = false;

  private result(): WriterResult {
    if (this.failure) return { ok: false, messageIds: this.messageIds, reason: 'failed', error: this.failure };
    return this.delivered ? { ok: true, messageIds: this.messageIds } : { ok: false, messageIds: this.messageIds, reason: 'closed' };
  }

  private settleWaiters(): void {
    const r = this.result();
    for (const w of this.finishWaiters.splice(0)) w(r);
    for (const w of this.flushWaiters.splice(0)) w();
  }

  // ------------------------------------------------------------------ scheduling

  private clearTimer(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, Math.max(0, at - this.clock.now()));
  }

  private draftRefreshDue(): number {
    if (this.native?.kind !== 'draft' || this.finalRequested) return Infinity;
    const last = this.slots[this.slots.length - 1];
    return last?.drafted && !last.id ? last.drafted.at + this.draftRefresh : Infinity;
  }

  private kick(): void {
    if (this.running || this.closed || this.failure) return;
    const now = this.clock.now();
    const refresh = this.draftRefreshDue();
    if (!this.dirty && refresh > now) {
      if (refresh < Infinity) this.arm(refresh);
      return;
    }
    let due: number;
    // finals and flushes jump the queue; the chat's rate budget (the governor) still paces them
    if (this.finalRequested || this.urgent) due = now;
    else if ((this.deferred?.answerLength ?? this.latest.answer.length) >= this.rollAt) due = Math.max(now, this.retryAt);
    else due = Math.max(this.lastSendAt + this.interval, this.retryAt, this.dirty ? -Infinity : refresh);
    if (due > now) {
      this.arm(due);
      return;
    }
    this.clearTimer();
    void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    this.dirty = false;
    const flushers = this.flushWaiters.splice(0);
    const wasUrgent = this.urgent;
    let outcome: Outcome;
    try {
      outcome = await this.cycle(this.finalRequested || this.urgent ? 'final' : 'live');
    } catch (e) {
      this.failure = asPlatformError(e);
      outcome = 'failed';
    }
    this.running = false;
    if (outcome === 'done' && wasUrgent) this.urgent = false;
    if (outcome === 'skipped' || outcome === 'replan') this.dirty = true;
    if (outcome === 'done' || outcome === 'failed') for (const f of flushers) f();
    else this.flushWaiters.unshift(...flushers);
    if (outcome === 'failed') {
      this.clearTimer();
      this.settleWaiters();
      return;
    }
    if (outcome === 'done' && this.finalRequested && !this.dirty) {
      this.delivered = true;
      this.closed = true;
      this.clearTimer();
      this.settleWaiters();
      return;
    }
    this.kick();
  }

  // ------------------------------------------------------------------ planning

  private compose(final: boolean): Planned[] {
    if (this.deferred) this.latest = this.deferred.render();
    this.deferred = undefined;
    const plan = planReply(this.latest, final, {
      limits: this.opts.limits,
      measure: this.measure,
      scale: this.scale,
      headerReserve: this.headerReserve,
      plainAt: (i) => this.slots[i]?.plain ?? false,
      memo: this.memo,
    });
    this.memo = plan.memo;
    this.rollAt = plan.rollAt;
    return plan.parts;
  }

  private nextStep(plan: Planned[], done: Set<number>, final: boolean): Step | undefined {
    return nextStep(this.slots, plan, done, final, { native: this.native?.kind, now: this.clock.now(), draftRefreshMs: this.draftRefresh });
  }

  private scopesFor(op: StepOp): RateScope[] {
    return this.surface.scopes(op);
  }

  // ------------------------------------------------------------------ execution

  private async cycle(priority: RatePriority): Promise<Outcome> {
    const final = this.finalRequested;
    const done = new Set<number>();
    for (;;) {
      const plan = this.compose(final);
      const step = this.nextStep(plan, done, final);
      if (!step) {
        // slots beyond the plan that never became messages (drafts) are simply forgotten
        if (this.slots.length > plan.length && this.slots.slice(plan.length).every((s) => !s.id)) this.slots.length = plan.length;
        return 'done';
      }
      const r = await this.execute(step, priority, final, done);
      if (r !== 'ok') return r;
    }
  }

  /**
   * One request: wait for the governor, re-plan with the newest snapshot, send, classify failures.
   * Returns 'ok' once a step has been settled (possibly a different one than planned, if the text moved on).
   */
  /**
   * One request: wait for the governor, re-plan with the newest snapshot, send, classify failures.
   * Returns 'ok' once a step has been settled (possibly a different one than planned, if the text moved on).
   */
  private async execute(planned: Step, priority: RatePriority, final: boolean, done: Set<number>): Promise<'ok' | Outcome> {
    const tries = { n: 0 };
    let op = planned.op;
    for (;;) {
      const scopes = this.scopesFor(op);
      const grant = await this.acquire(scopes, priority);
      if (this.closed) return 'failed';
      if (!grant.granted) {
        this.retryAt = Math.max(this.retryAt, grant.reason === 'wait_too_long' ? grant.retryAt : this.clock.now());
        this.opts.onEvent?.({ type: 'skipped', op, part: planned.index, retryAt: grant.retryAt });
        return 'skipped';
      }
      // newest text, decided now: what was planned before the wait may be stale
      const plan = this.compose(final);
      const step = this.nextStep(plan, done, final);
      if (!step) return 'ok';
      op = step.op;
      try {
        const sent = await performStep(step, plan, this.slots, this.surface, this.native, this.clock);
        this.opts.onEvent?.({ type: 'sent', op, part: step.index, ...(sent.messageId ? { messageId: sent.messageId } : {}), final: sent.content.final, content: sent.content });
        if (op !== 'delete') done.add(step.index);
        this.lastSendAt = this.clock.now();
        this.retryAt = -Infinity;
        return 'ok';
      } catch (e) {
        const next = await this.onFailure(asPlatformError(e), step, plan, { scopes, priority, final, done, tries });
        if (next !== 'again') return next;
      }
    }
  }

  private acquire(scopes: RateScope[], priority: RatePriority) {
    if (priority !== 'live') return this.opts.governor.acquire(scopes, { priority });
    this.liveAbort = new AbortController();
    const signal = this.liveAbort.signal;
    return this.opts.governor.acquire(scopes, { priority, maxWaitMs: this.liveMaxWait, signal }).finally(() => (this.liveAbort = undefined));
  }

  /** A failed step, by its class: 'again' tries once more (after any wait), anything else ends the request. */
  private async onFailure(
    err: PlatformError,
    step: Step,
    plan: Planned[],
    x: { scopes: RateScope[]; priority: RatePriority; final: boolean; done: Set<number>; tries: { n: number } },
  ): Promise<'again' | 'ok' | Outcome> {
    const { op, index: part } = step;
    const c = err.classification;
    if (c.kind === 'ignore' && op !== 'post' && op !== 'stream_start') {
      acceptAsSent(step, plan, this.slots, this.clock);
      if (op !== 'delete') x.done.add(part);
      return 'ok';
    }
    if (c.kind === 'surface') {
      this.failure = err;
      this.opts.onEvent?.({ type: 'failed', op, part, error: err });
      return 'failed';
    }
    if (c.kind === 'degrade') {
      this.opts.onEvent?.({ type: 'degraded', op, part, reason: c.reason });
      if (++x.tries.n >= this.finalMaxTries * 2) return this.giveUp(op, part, err, x.final);
      return this.degrade(c.reason, step, err, x.final);
    }
    // retry (or an ignore that cannot apply: nothing exists yet to have been done)
    x.tries.n++;
    this.opts.onEvent?.({ type: 'retry', op, part, attempt: x.tries.n, error: err });
    const after = c.kind === 'retry' ? c.retryAfterMs : undefined;
    if (after !== undefined) this.opts.governor.pause(pauseScopes(x.scopes, c.kind === 'retry' ? c.scope : undefined), after);
    if (x.priority === 'live') {
      this.retryAt = this.clock.now() + (after ?? this.interval);
      return 'skipped';
    }
    if (x.tries.n >= this.finalMaxTries) return this.giveUp(op, part, err, x.final);
    if (after === undefined) await delay(this.clock, backoffMs(x.tries.n));
    return 'again';
  }

  /** Degrade and go on: plain text, post anew, a smaller split, or no native streaming. */
  private degrade(reason: 'format' | 'too_long' | 'gone' | 'draft_unsupported', step: Step, err: PlatformError, final: boolean): 'again' | 'ok' | Outcome {
    const slot = this.slot(step.index);
    switch (reason) {
      case 'format':
        if (slot.plain) return this.giveUp(step.op, step.index, err, final);
        slot.plain = true;
        return 'again';
      case 'gone':
        if (step.op === 'delete') {
          this.slots.splice(step.index, 1);
          return 'ok';
        }
        Object.assign(slot, { id: undefined, sent: undefined, stream: undefined });
        return 'again';
      case 'too_long':
        if (this.scale <= MIN_SCALE) return this.giveUp(step.op, step.index, err, final);
        this.scale = Math.max(MIN_SCALE, this.scale * 0.75);
        this.memo = undefined;
        return 'replan';
      case 'draft_unsupported':
        // native streaming is off for this reply; a started stream becomes a plain message
        this.native = undefined;
        for (const s of this.slots) s.stream = undefined;
        return 'replan';
    }
  }

  private giveUp(op: StepOp, part: number, err: PlatformError, final: boolean): Outcome {
    if (!final) return 'skipped';
    this.failure = err;
    this.opts.onEvent?.({ type: 'failed', op, part, error: err });
    return 'failed';
  }

  private slot(i: number): Slot {
    while (this.slots.length <= i) this.slots.push({ plain: false });
    return this.slots[i];
  }
}
