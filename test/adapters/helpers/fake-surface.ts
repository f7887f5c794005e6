/**
 * Recording fake MessageSurface for writer tests: keeps every message's current content and history,
 * every call with its fake-clock time, the peak number of concurrent requests, and lets a test inject
 * PlatformErrors per call — before the call takes effect, or after (the platform applied it but the
 * response was lost), which is how "message is not modified" arises on a retried edit.
 */
import type { Clock } from '../../../src/adapters/contract/clock';
import { delay } from '../../../src/adapters/contract/clock';
import { PlatformError } from '../../../src/adapters/contract/errors';
import type { RateOp, RateScope } from '../../../src/adapters/contract/rate';
import type { AppendStream, DraftStream, MessageSurface, OutboundContent } from '../../../src/adapters/contract/surface';

export interface Call {
  op: RateOp;
  at: number;
  /** Free slot for tests (e.g. the snapshot current when the call started). */
  note?: unknown;
  id?: string;
  content?: OutboundContent;
  delta?: string;
  failed?: PlatformError;
}

export interface Fault {
  error: PlatformError;
  /** The platform applied the call, then the response failed (only sensible for edits). */
  afterApply?: boolean;
}

export type FaultPlan = (op: RateOp, call: Call, n: number) => Fault | undefined;

export interface FakeMessage {
  id: string;
  content: OutboundContent;
  history: OutboundContent[];
  deleted: boolean;
  streaming: boolean;
}

export const err = {
  rateLimited: (retryAfterMs: number, scope?: 'account' | 'method' | 'chat') => new PlatformError('test', { kind: 'retry', retryAfterMs, ...(scope ? { scope } : {}) }, `429 retry after ${retryAfterMs} ms`, { code: 429 }),
  transient: () => new PlatformError('test', { kind: 'retry' }, 'ECONNRESET', { code: 'ECONNRESET' }),
  notModified: () => new PlatformError('test', { kind: 'ignore', reason: 'not_modified' }, 'message is not modified'),
  format: () => new PlatformError('test', { kind: 'degrade', reason: 'format' }, "can't parse entities"),
  tooLong: () => new PlatformError('test', { kind: 'degrade', reason: 'too_long' }, 'message is too long'),
  gone: () => new PlatformError('test', { kind: 'degrade', reason: 'gone' }, 'message to edit not found'),
  draftUnsupported: () => new PlatformError('test', { kind: 'degrade', reason: 'draft_unsupported' }, 'drafts are not supported here'),
  auth: () => new PlatformError('test', { kind: 'surface', reason: 'auth' }, 'invalid_auth'),
};

export interface FakeSurfaceOptions {
  clock: Clock;
  /** Simulated request latency (default 40 ms). */
  latencyMs?: number;
  scopes?: (op: RateOp) => RateScope[];
  faults?: FaultPlan;
  native?: 'draft' | 'append';
  /** Reject edits identical to the current content, like Telegram ("message is not modified"). */
  rejectIdentical?: boolean;
  /** Reject content longer than this (in UTF-16 units of `text`). */
  maxLength?: number;
  /** Called synchronously when a call starts (to compare with what the test has pushed so far). */
  onCall?: (call: Call) => void;
}

export class FakeSurface implements MessageSurface {
  readonly calls: Call[] = [];
  readonly messages = new Map<string, FakeMessage>();
  readonly order: string[] = [];
  readonly drafts: OutboundContent[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private n = 0;
  private seq = 0;
  native?: DraftStream | AppendStream;

  constructor(private readonly o: FakeSurfaceOptions) {
    if (o.native === 'draft') this.native = { kind: 'draft', draft: (c) => this.call('draft', { content: c }, () => { this.drafts.push(c); }) };
    if (o.native === 'append')
      this.native = {
        kind: 'append',
        start: (c) => this.call('stream_start', { content: c }, () => this.create(c, true)),
        append: (id, delta, c) =>
          this.call('stream_append', { id, delta, content: c }, () => {
            const m = this.get(id);
            if (!m.streaming) throw new PlatformError('test', { kind: 'degrade', reason: 'draft_unsupported' }, 'stream already stopped');
            this.set(m, { ...c, text: m.content.text + delta });
          }),
        stop: (id, c) =>
          this.call('stream_stop', { id, content: c }, () => {
            const m = this.get(id);
            m.streaming = false;
            this.set(m, c);
          }),
      };
  }

  scopes(op: RateOp): RateScope[] {
    return this.o.scopes?.(op) ?? [];
  }

  post(content: OutboundContent): Promise<string> {
    return this.call('post', { content }, () => this.create(content, false));
  }

  edit(id: string, content: OutboundContent): Promise<void> {
    return this.call('edit', { id, content }, () => {
      const m = this.get(id);
      // identical payload: same text, buttons, and rendering (plain / final decide how the adapter renders)
      const same = m.content.text === content.text && JSON.stringify(m.content.buttons ?? []) === JSON.stringify(content.buttons ?? []) && m.content.plain === content.plain && m.content.final === content.final;
      if (this.o.rejectIdentical && same) throw err.notModified();
      this.set(m, content);
    });
  }

  delete(id: string): Promise<void> {
    return this.call('delete', { id }, () => {
      this.get(id).deleted = true;
    });
  }

  private create(content: OutboundContent, streaming: boolean): string {
    const id = `m${++this.seq}`;
    this.check(content);
    this.messages.set(id, { id, content, history: [content], deleted: false, streaming });
    this.order.push(id);
    return id;
  }

  private check(content: OutboundContent): void {
    if (this.o.maxLength !== undefined && content.text.length > this.o.maxLength) throw err.tooLong();
  }

  private set(m: FakeMessage, content: OutboundContent): void {
    this.check(content);
    m.content = content;
    m.history.push(content);
  }

  private get(id: string): FakeMessage {
    const m = this.messages.get(id);
    if (!m || m.deleted) throw err.gone();
    return m;
  }

  private async call<T>(op: RateOp, fields: Omit<Call, 'op' | 'at'>, apply: () => T): Promise<T> {
    const call: Call = { op, at: this.o.clock.now(), ...fields };
    this.calls.push(call);
    this.o.onCall?.(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await delay(this.o.clock, this.o.latencyMs ?? 40);
      const fault = this.o.faults?.(op, call, this.n++);
      if (fault && !fault.afterApply) {
        call.failed = fault.error;
        throw fault.error;
      }
      const value = apply();
      if (fault?.afterApply) {
        call.failed = fault.error;
        throw fault.error;
      }
      return value;
    } catch (e) {
      call.failed ??= e as PlatformError;
      throw e;
    } finally {
      this.inFlight--;
    }
  }

  /** Live (not deleted) messages in the order they were posted. */
  visible(): FakeMessage[] {
    return this.order.map((id) => this.messages.get(id)!).filter((m) => !m.deleted);
  }

  /** The answer parts of the visible messages, joined: what the user ends up reading as the answer. */
  deliveredAnswer(): string {
    return this.visible().map((m) => m.content.answer).join('');
  }

  count(op: RateOp): number {
    return this.calls.filter((c) => c.op === op && !c.failed).length;
  }
}

/** The answer part embedded in a message text must be exactly the claimed slice; returns it. */
export function embeddedAnswer(c: OutboundContent): string {
  return c.text.slice(c.answerOffset, c.answerOffset + c.answer.length);
}
