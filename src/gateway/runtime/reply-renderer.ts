/**
 * ReplyRenderer: the live reply of one Task (gateway.md §4). Folds the Task's OmniMessage stream (plus host
 * events such as pending approvals) into the live view, hands each snapshot to the platform-free
 * MessageWriter, and records every part of the reply in the delivery ledger from its first showing (a draft
 * preview included, as 'pending' until it becomes a message), so a restart can find replies that were cut
 * off, and each step (post, edit, draft, retry, 429, failure) as a timeline event for the dashboard.
 * `finish()` settles the final text without the Stop button and says whether the platform refused the
 * conversation (the Task's runner marks it on the session).
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock } from '../../adapters/contract/clock';
import { surfaceFor } from '../../adapters/contract/adapter';
import { bindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import { answerLength, emptyLiveView, foldLiveView, renderLiveReply, type LiveInput, type LiveView, type Pricing, type RateGovernor, type ReplySnapshot, type SecretRedactor } from '../../adapters/render';
import { MessageWriter, type WriterEvent, type WriterResult } from '../../adapters/render/message-writer';
import { withoutStatus } from '../../adapters/render/writer-plan';
import type { DeliveryEventKind, GatewayStore } from '../store';
import type { Logger } from 'pino';

const TIMELINE_OPS = new Set<string>(['post', 'edit', 'draft', 'delete', 'stream_start', 'stream_append', 'stream_stop']);


/** How a reply ended, and what it says of the conversation's platform problem (see `platformProblem`). */
export interface FinishedReply {
  result: WriterResult;
  platformProblem: string | null | undefined;
}
export interface ReplyRendererOptions {
  adapter: ChannelAdapter;
  thread: ThreadRef;
  isDM: boolean;
  clock: Clock;
  governor: RateGovernor;
  store: GatewayStore;
  logger: Logger;
  sessionId: string;
  taskId: string;
  pricing?: Pricing;
  /** Encoded Stop button payload while the Task runs. */
  stopPayload?: string;
  /** Called once when the first platform message of this reply exists (inbound → first reply latency). */
  onFirstSend?: () => void;
  /** Masks secrets (vault values, gateway credentials) in everything the reply shows. */
  redactor?: SecretRedactor;
  /** Tokens, cost and duration under the finished reply. */
  usageFooter?: boolean;
}

export class ReplyRenderer {
  private view: LiveView;
  private readonly writer: MessageWriter;
  /** Delivery ledger row per message part. */
  private readonly deliveries = new Map<number, Promise<number | undefined>>();
  /** Parts whose ledger row carries the platform message id. */
  private readonly identified = new Set<number>();
  private firstSent = false;
  /** Timeline writes, in order; finish() waits for them. */
  private events: Promise<void> = Promise.resolve();

  constructor(private readonly o: ReplyRendererOptions) {
    this.view = foldLiveView(emptyLiveView(), { kind: 'task_started', at: o.clock.now() });
    this.writer = new MessageWriter({
      surface: surfaceFor(o.adapter, o.thread, { isDM: o.isDM }),
      clock: o.clock,
      governor: o.governor,
      limits: o.adapter.limits,
      isDM: o.isDM,
      onEvent: (e) => this.onWriterEvent(e),
    });
  }

  get liveView(): LiveView {
    return this.view;
  }

  /** Folds `input` in; the reply is rendered (and redacted) only when the writer is about to send it. */
  push(input: LiveInput): void {
    const view = foldLiveView(this.view, input);
    this.view = view;
    this.writer.updateLazy(() => this.redacted(renderLiveReply(view, { pricing: this.o.pricing, stopPayload: this.o.stopPayload }), true), answerLength(view));
  }

  /** Live snapshots also hold back a trailing partial secret; the final one masks whole matches only. */
  private redacted(s: ReplySnapshot, live: boolean): ReplySnapshot {
    const r = this.o.redactor;
    if (!r) return s;
    const f = live ? (t: string) => r.redactLive(t) : (t: string) => r.redact(t);
    return { ...s, status: f(s.status ?? ''), header: f(s.header), answer: f(s.answer) };
  }

  /** Send what there is now (before an approval card, so the card lands under the current text). */
  flush(): Promise<void> {
    return this.writer.flushNow();
  }

  /**
   * Send the final text. `interrupted`: the Task was cut off by a shutdown, so its ledger rows stay open
   * and the next start offers Continue, as after a crash.
   */
  async finish(opts: { interrupted?: boolean } = {}): Promise<FinishedReply> {
    this.view = foldLiveView(this.view, { kind: 'task_finished', at: this.o.clock.now() });
    const result = await this.writer.finish(this.redacted(renderLiveReply(this.view, { pricing: this.o.pricing, usageFooter: this.o.usageFooter }), false));
    const rows = await Promise.all(this.deliveries.values());
    // Issued together with the timeline's last steps, so the rows of one reply change in one commit.
    await Promise.all([
      this.events,
      ...rows.map((id) => {
        if (id === undefined || (opts.interrupted && result.ok)) return undefined;
        return this.o.store.setDeliveryState(id, result.ok ? 'finalized' : 'failed').catch((e) => this.o.logger.warn({ err: e }, 'delivery ledger update failed'));
      }),
    ]);
    return { result, platformProblem: this.platformProblem(result) };
  }

  /**
   * A problem only the operator (or the user) can fix — the bot blocked or kicked, missing permissions, a
   * rejected token — is logged as an error and is the session's to mark (null: a reply got through, which
   * clears it; undefined: this reply says nothing either way).
   */
  private platformProblem(result: WriterResult): string | null | undefined {
    const err = result.ok ? undefined : result.error;
    const c = err?.classification;
    if (!result.ok && c?.kind !== 'surface') {
      this.o.logger.warn({ err: err?.message, sessionId: this.o.sessionId }, 'live reply could not be completed');
      return undefined;
    }
    const problem = c?.kind === 'surface' ? `${c.reason}: ${err!.message}` : null;
    if (problem) this.o.logger.error({ platform: this.o.adapter.platform, sessionId: this.o.sessionId, problem }, 'the platform refused this conversation; the operator must act');
    return problem;
  }

  /** Appends a step to this Task's timeline (`part` null: the Task itself), after the ledger row exists. */
  note(kind: DeliveryEventKind, detail: string | null, part: number | null = null, at = this.o.clock.now()): void {
    const row = part === null ? undefined : this.deliveries.get(part);
    this.events = this.events.then(async () => {
      const deliveryId = row ? ((await row) ?? null) : null;
      await this.o.store.addDeliveryEvent({ task_id: this.o.taskId, delivery_id: deliveryId, part, kind, detail, at });
    }).catch((err: unknown) => this.o.logger.warn({ err }, 'delivery timeline write failed'));
  }

  /** Stop without a final edit (gateway shutting down after the final was attempted). */
  close(): void {
    this.writer.close();
  }

  private onWriterEvent(e: WriterEvent): void {
    this.record(e);
    this.timeline(e);
  }

  /** The ledger rows of the reply's messages. */
  private record(e: WriterEvent): void {
    if (e.type === 'failed') {
      this.o.logger.warn({ op: e.op, part: e.part, error: e.error.message, sessionId: this.o.sessionId }, 'platform call failed');
      return;
    }
    if (e.type !== 'sent') return;
    if (e.messageId !== undefined && !this.firstSent) {
      this.firstSent = true;
      this.o.onFirstSend?.();
    }
    // What a real message shows now (without the live status), so a restart can finalise it in place.
    const shown = e.messageId !== undefined && e.op !== 'delete' && e.op !== 'draft' ? withoutStatus(e.content) : undefined;
    // A part is in the ledger from its first showing, a draft preview included (no message id yet, so
    // 'pending'): a crash while only a draft shows must still leave a reply for the next start to find.
    const row = this.deliveries.get(e.part);
    if (!row) {
      this.deliveries.set(e.part, this.ledger(() => this.o.store.createDelivery({
        platform: this.o.adapter.platform,
        chat: bindingKey(this.o.thread),
        purpose: 'live',
        session_id: this.o.sessionId,
        task_id: this.o.taskId,
        platform_message_id: e.messageId ?? null,
        state: e.messageId !== undefined ? 'sent' : 'pending',
      })));
      if (e.messageId !== undefined) this.identified.add(e.part);
    } else if (e.messageId !== undefined && e.op !== 'delete' && !this.identified.has(e.part)) {
      this.identified.add(e.part);
      const messageId = e.messageId;
      // The message id and what it shows, issued together: one commit.
      this.deliveries.set(e.part, row.then((id) => (id === undefined ? undefined : Promise.all([
        this.ledger(() => this.o.store.markDeliverySent(id, messageId)),
        shown !== undefined ? this.setShown(id, shown) : undefined,
      ]).then(([sent]) => sent))));
      return;
    }
    if (shown !== undefined) {
      this.deliveries.set(e.part, this.deliveries.get(e.part)!.then(async (id) => {
        if (id !== undefined) await this.setShown(id, shown);
        return id;
      }));
    }
  }

  private setShown(id: number, text: string): Promise<void> {
    return this.o.store.setDeliveryShown(id, text).catch((err: unknown) => this.o.logger.warn({ err }, 'delivery ledger write failed'));
  }

  /** The writer's steps as timeline events; a deferral by the governor ('skipped') is not a step. */
  private timeline(e: WriterEvent): void {
    switch (e.type) {
      case 'sent':
        if (!TIMELINE_OPS.has(e.op)) return;
        this.note(e.op as DeliveryEventKind, [e.messageId !== undefined ? `message ${e.messageId}` : undefined, e.final ? 'final' : undefined].filter(Boolean).join(', ') || null, e.part);
        return;
      case 'retry': {
        const c = e.error.classification;
        const wait = c.kind === 'retry' ? c.retryAfterMs : undefined;
        if (wait !== undefined) this.note('rate_limited', `${e.op}: ${e.error.message} (asked to wait ${wait} ms)`, e.part);
        else this.note('retry', `${e.op}, attempt ${e.attempt}: ${e.error.message}`, e.part);
        return;
      }
      case 'degraded':
        this.note('degraded', `${e.op}: ${e.reason}`, e.part);
        return;
      case 'failed':
        this.note('failed', `${e.op}: ${e.error.message}`, e.part);
        return;
      case 'skipped':
        return;
    }
  }

  private ledger(write: () => Promise<{ id: number } | undefined>): Promise<number | undefined> {
    return write().then(
      (r) => r?.id,
      (err: unknown) => {
        this.o.logger.warn({ err }, 'delivery ledger write failed');
        return undefined;
      },
    );
  }
}
