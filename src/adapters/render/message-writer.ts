/**
 * MessageWriter: delivers one live reply (header + answer) to a MessageSurface as it grows (gateway.md §4).
 * Latest snapshot only, one request in flight, text composed after the governor grants (never stale),
 * edits ≥ interval apart, identical content skipped, final flush at once with final priority; long answers
 * roll into continuation messages (fences closed/reopened), live edits healed. Errors follow their class:
 * retry (finals ≤ N tries, live skipped), degrade (plain, re-split, post anew, no native), ignore, surface.
 */
import { delay, type Clock, type TimerHandle } from '../contract/clock';
import { asPlatformError, type PlatformError } from '../contract/errors';
import { editIntervalMs, measureLength, type PlatformLimits } from '../contract/limits';
import type { RateOp, RatePriority, RateScope } from '../contract/rate';
import type { ButtonSpec, MessageSurface, NativeStream, OutboundContent } from '../contract/surface';
import { healSuffix } from './heal';
import type { ReplySnapshot } from './live-reply';
import { chunkMarkdown, type ChunkMemo } from './markdown-chunks';
import type { RateGovernor } from './rate-governor';

export interface WriterOptions {
  surface: MessageSurface;
  clock: Clock;
  governor: RateGovernor;
  limits: PlatformLimits;
  isDM: boolean;
  /** Length of Markdown as the platform counts it once rendered (default: the surface's measure, else the Markdown in `limits.lengthUnit`). */
  measure?: (markdown: string) => number;
  /** Minimum time between edits (default: the limits' DM / group interval). */
  intervalMs?: number;
  /** Room kept in the first message for the header (default min(600, splitTarget / 4)). */
  headerReserve?: number;
  /** Live requests give up when the governor or a retry_after would make them wait longer (default 5 s). */
  liveMaxWaitMs?: number;
  /** Tries per final request (default 5). */
  finalMaxTries?: number;
  /** Use `surface.native` when present (default true). */
  useNative?: boolean;
  /** Re-send an unchanged draft preview this often so it does not expire (default 20 s). */
  draftRefreshMs?: number;
  onEvent?: (e: WriterEvent) => void;
}

export type WriterEvent =
  | { type: 'sent'; op: RateOp; part: number; messageId?: string; final: boolean }
  | { type: 'skipped'; op: RateOp; part: number; retryAt: number }
  | { type: 'retry'; op: RateOp; part: number; attempt: number; error: PlatformError }
  | { type: 'degraded'; op: RateOp; part: number; reason: string }
  | { type: 'failed'; op: RateOp; part: number; error: PlatformError };

/** ok: every message shows its final content. Otherwise a request failed for good, or the writer was closed first. */
export type WriterResult =
  | { ok: true; messageIds: string[] }
  | { ok: false; messageIds: string[]; reason: 'failed'; error: PlatformError }
  | { ok: false; messageIds: string[]; reason: 'closed'; error?: undefined };

interface Slot {
  id?: string;
  sent?: OutboundContent;
  plain: boolean;
  /** Open append stream: the text streamed so far. */
  stream?: string;
  /** Last draft preview shown for this part. */
  drafted?: { text: string; at: number };
}

interface Planned {
  content: OutboundContent;
  /** Header + reopened fence + answer slice: what an append stream may extend. */
  streamBody: string;
}

type StepOp = 'post' | 'edit' | 'delete' | 'draft' | 'stream_start' | 'stream_append' | 'stream_stop';
interface Step {
  index: number;
  op: StepOp;
}

type Outcome = 'done' | 'skipped' | 'replan' | 'failed';

const HEAL_MARGIN = 16;
const MIN_SCALE = 0.2;

function sameButtons(a?: ButtonSpec[], b?: ButtonSpec[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

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
    this.finalMaxTries = opts.finalMaxTries ?? 5;
    this.draftRefresh = opts.draftRefreshMs ?? 20_000;
    this.native = opts.useNative === false ? undefined : opts.surface.native;
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
    if (this.closed || this.finalRequested || this.failure) return;
    this.latest = snapshot;
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
    if (this.finalRequested || this.urgent) due = now;
    else if (this.latest.answer.length >= this.rollAt) due = Math.max(now, this.retryAt);
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

  private capacity(index: number): number {
    const base = Math.floor(this.opts.limits.splitTarget * this.scale) - HEAL_MARGIN;
    return index === 0 ? base - this.headerReserve - 2 : base;
  }

  /** The header, shortened to its reserve: the status line, then as many of the latest lines as fit. */
  private fitHeader(header: string): string {
    if (header === '' || this.measure(header) <= this.headerReserve) return header;
    const lines = header.split('\n');
    const kept: string[] = [];
    for (let i = lines.length - 1; i >= 1; i--) {
      const candidate = [lines[0], '…', lines[i], ...kept].join('\n');
      if (this.measure(candidate) > this.headerReserve) break;
      kept.unshift(lines[i]);
    }
    const out = kept.length === lines.length - 1 ? header : [lines[0], '…', ...kept].join('\n');
    if (this.measure(out) <= this.headerReserve) return out;
    return [...lines[0]].slice(0, Math.max(1, this.headerReserve - 1)).join('') + '…';
  }

  private compose(final: boolean): Planned[] {
    const { header, answer, buttons } = this.latest;
    const key = `${this.scale}`;
    const res = chunkMarkdown(answer, {
      fits: (md, i) => this.measure(md) <= this.capacity(i),
      memo: this.memo,
      memoKey: key,
    });
    this.memo = res.memo;
    const chunks = res.chunks;
    const head = this.fitHeader(header);
    const planned = chunks.map((c, i): Planned => {
      const h = i === 0 ? head : '';
      const slice = answer.slice(c.start, c.end);
      const body = c.prefix + slice + c.suffix;
      const isLast = i === chunks.length - 1;
      const heal = !final && isLast ? healSuffix(body) : '';
      const sep = h !== '' && body !== '' ? '\n\n' : '';
      let text = h + sep + body + heal;
      if (text === '') text = '…';
      const content: OutboundContent = {
        text,
        header: h,
        answer: slice,
        answerOffset: text === '…' ? 0 : h.length + sep.length + c.prefix.length,
        ...(isLast && buttons?.length ? { buttons } : {}),
        plain: this.slots[i]?.plain ?? false,
        // a part that is no longer the last one is complete: render it fully now, so the end adds no edit
        final: final || !isLast,
        part: i,
      };
      return { content, streamBody: h + sep + c.prefix + slice };
    });
    // when may the last chunk outgrow its capacity? (each source character adds at most about one rendered one)
    const last = chunks[chunks.length - 1];
    const lastIndex = chunks.length - 1;
    const room = this.capacity(lastIndex) - this.measure(last.prefix + answer.slice(last.start, last.end) + last.suffix);
    this.rollAt = answer.length + Math.max(1, room);
    return planned;
  }

  private modeOf(isLast: boolean, final: boolean, slot: Slot | undefined): 'draft' | 'stream' | 'message' {
    const live = isLast && !final;
    if (this.native?.kind === 'draft' && live && !slot?.id) return 'draft';
    if (this.native?.kind === 'append' && (slot?.stream !== undefined || (live && !slot?.id))) return 'stream';
    return 'message';
  }

  private nextStep(plan: Planned[], done: Set<number>, final: boolean): Step | undefined {
    const now = this.clock.now();
    for (let i = 0; i < plan.length; i++) {
      if (done.has(i)) continue;
      const slot = this.slots[i];
      const { content, streamBody } = plan[i];
      const isLast = i === plan.length - 1;
      switch (this.modeOf(isLast, final, slot)) {
        case 'draft':
          if (!slot?.drafted || slot.drafted.text !== content.text || now - slot.drafted.at >= this.draftRefresh) return { index: i, op: 'draft' };
          break;
        case 'stream':
          if (!slot?.id) return { index: i, op: 'stream_start' };
          if (!isLast || final || !streamBody.startsWith(slot.stream ?? '')) return { index: i, op: 'stream_stop' };
          if (streamBody.length > (slot.stream ?? '').length || !sameButtons(slot.sent?.buttons, content.buttons)) return { index: i, op: 'stream_append' };
          break;
        case 'message': {
          if (!slot?.id) return { index: i, op: 'post' };
          const s = slot.sent;
          if (!s || s.text !== content.text || s.plain !== content.plain || !sameButtons(s.buttons, content.buttons) || (content.final && !s.final)) return { index: i, op: 'edit' };
          break;
        }
      }
    }
    for (let i = plan.length; i < this.slots.length; i++) if (!done.has(i) && this.slots[i].id) return { index: i, op: 'delete' };
    return undefined;
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
  private async execute(planned: Step, priority: RatePriority, final: boolean, done: Set<number>): Promise<'ok' | Outcome> {
    let tries = 0;
    let op = planned.op;
    for (;;) {
      const scopes = this.scopesFor(op);
      let signal: AbortSignal | undefined;
      if (priority === 'live') {
        this.liveAbort = new AbortController();
        signal = this.liveAbort.signal;
      }
      const grant = await this.opts.governor.acquire(scopes, { priority, ...(priority === 'live' ? { maxWaitMs: this.liveMaxWait, signal } : {}) });
      this.liveAbort = undefined;
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
      const i = step.index;
      try {
        await this.send(step, plan);
        if (op !== 'delete') done.add(i);
        this.lastSendAt = this.clock.now();
        this.retryAt = -Infinity;
        return 'ok';
      } catch (e) {
        const err = asPlatformError(e);
        const c = err.classification;
        const part = i;
        switch (c.kind) {
          case 'ignore':
            if (op === 'post' || op === 'stream_start') break; // nothing to ignore: no message exists yet
            this.acceptAsSent(step, plan);
            if (op !== 'delete') done.add(i);
            return 'ok';
          case 'surface':
            this.failure = err;
            this.opts.onEvent?.({ type: 'failed', op, part, error: err });
            return 'failed';
          case 'degrade': {
            this.opts.onEvent?.({ type: 'degraded', op, part, reason: c.reason });
            tries++;
            if (tries >= this.finalMaxTries * 2) return this.giveUp(op, part, err, final);
            if (c.reason === 'format') {
              const slot = this.slot(i);
              if (slot.plain) return this.giveUp(op, part, err, final);
              slot.plain = true;
              continue;
            }
            if (c.reason === 'gone') {
              if (op === 'delete') {
                this.slots.splice(i, 1);
                return 'ok';
              }
              const slot = this.slot(i);
              slot.id = undefined;
              slot.sent = undefined;
              slot.stream = undefined;
              continue;
            }
            if (c.reason === 'too_long') {
              if (this.scale <= MIN_SCALE) return this.giveUp(op, part, err, final);
              this.scale = Math.max(MIN_SCALE, this.scale * 0.75);
              this.memo = undefined;
              return 'replan';
            }
            // draft_unsupported: native streaming is off for this reply; a started stream becomes a plain message
            this.native = undefined;
            for (const s of this.slots) s.stream = undefined;
            return 'replan';
          }
          case 'retry':
            break;
        }
        // retry (or an ignore that cannot apply)
        tries++;
        this.opts.onEvent?.({ type: 'retry', op, part, attempt: tries, error: err });
        const after = c.kind === 'retry' ? c.retryAfterMs : undefined;
        if (after !== undefined) this.opts.governor.pause(this.pauseScopes(scopes, c.kind === 'retry' ? c.scope : undefined), after);
        if (priority === 'live') {
          this.retryAt = this.clock.now() + (after ?? this.interval);
          return 'skipped';
        }
        if (tries >= this.finalMaxTries) return this.giveUp(op, part, err, final);
        if (after === undefined) await delay(this.clock, Math.min(30_000, 1_000 * 2 ** (tries - 1)));
      }
    }
  }

  private giveUp(op: StepOp, part: number, err: PlatformError, final: boolean): Outcome {
    if (!final) return 'skipped';
    this.failure = err;
    this.opts.onEvent?.({ type: 'failed', op, part, error: err });
    return 'failed';
  }

  /** A 429 pauses the scope level it names, else the narrowest scope of the call. */
  private pauseScopes(scopes: RateScope[], level: RateScope['level'] | undefined): RateScope[] {
    if (scopes.length === 0) return [];
    const named = level ? scopes.filter((s) => s.level === level) : [];
    return named.length ? named : [scopes[scopes.length - 1]];
  }

  private slot(i: number): Slot {
    while (this.slots.length <= i) this.slots.push({ plain: false });
    return this.slots[i];
  }

  private acceptAsSent(step: Step, plan: Planned[]): void {
    const slot = this.slot(step.index);
    const p = plan[step.index];
    if (step.op === 'delete') this.slots.splice(step.index, 1);
    else if (step.op === 'draft') slot.drafted = { text: p.content.text, at: this.clock.now() };
    else {
      slot.sent = p.content;
      if (step.op === 'stream_append') slot.stream = p.streamBody;
      if (step.op === 'stream_stop') slot.stream = undefined;
    }
  }

  private async send(step: Step, plan: Planned[]): Promise<void> {
    const i = step.index;
    const slot = this.slot(i);
    const p = plan[i];
    const ev = (messageId?: string) => this.opts.onEvent?.({ type: 'sent', op: step.op, part: i, ...(messageId ? { messageId } : {}), final: p?.content.final ?? false });
    switch (step.op) {
      case 'post': {
        const id = await this.surface.post(p.content);
        slot.id = id;
        slot.sent = p.content;
        slot.drafted = undefined;
        ev(id);
        return;
      }
      case 'edit':
        await this.surface.edit(slot.id!, p.content);
        slot.sent = p.content;
        ev(slot.id);
        return;
      case 'delete': {
        const id = slot.id!;
        await this.surface.delete(id);
        this.slots.splice(i, 1);
        ev(id);
        return;
      }
      case 'draft': {
        const native = this.native as Extract<NativeStream, { kind: 'draft' }>;
        await native.draft(p.content);
        slot.drafted = { text: p.content.text, at: this.clock.now() };
        ev();
        return;
      }
      case 'stream_start': {
        const native = this.native as Extract<NativeStream, { kind: 'append' }>;
        const content = { ...p.content, text: p.streamBody };
        const id = await native.start(content);
        slot.id = id;
        slot.stream = p.streamBody;
        slot.sent = content;
        ev(id);
        return;
      }
      case 'stream_append': {
        const native = this.native as Extract<NativeStream, { kind: 'append' }>;
        const delta = p.streamBody.slice((slot.stream ?? '').length);
        const content = { ...p.content, text: p.streamBody };
        await native.append(slot.id!, delta, content);
        slot.stream = p.streamBody;
        slot.sent = content;
        ev(slot.id);
        return;
      }
      case 'stream_stop': {
        const native = this.native as Extract<NativeStream, { kind: 'append' }>;
        await native.stop(slot.id!, p.content);
        slot.stream = undefined;
        slot.sent = p.content;
        ev(slot.id);
        return;
      }
    }
  }
}
