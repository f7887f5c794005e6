/**
 * TaskRunner: one Task of a conversation's session, end to end (gateway.md §4, §5, §7). It renders the
 * live reply (typing renewed at the adapter's pace), answers tool calls through the approval broker, keeps
 * the session row's status, and after the first reply asks the model for a title (shown where the platform
 * titles conversations; its usage recorded here, the trace-derived rows being the TraceLedger's). Title
 * requests wait in a queue, a few at a time, and only while no message is still on its way to its model's
 * first answer: in a burst of new conversations every first request is answering before any title is
 * asked for. A Task a
 * schedule started answers approvals with its schedule's mode and names the schedule on cards. An exception
 * inside the gateway ends the Task with an abort the user can read, never a crash; `run` resolves to how the
 * Task ended.
 */
import { encodeActionPayload } from '../../adapters/contract/action-payload';
import type { Clock } from '../../adapters/contract/clock';
import type { ChatUser } from '../../adapters/contract/messages';
import { answerText, type Pricing, type RateGovernor, type SecretRedactor } from '../../adapters/render';
import { fallbackTitle } from '../../core/agent/title';
import * as b from '../../core/omnimessage/builders';
import { isPayload } from '../../core/omnimessage/guards';
import type { BareUsage } from '../../core/interfaces';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import type { GatewayStore } from '../store';
import type { ApprovalBroker } from './approval-broker';
import type { Entry, RunningTask, TaskOutcome } from './conversation';
import { ReplyRenderer } from './reply-renderer';
import { keepTyping } from './typing';

export interface TaskRunnerOptions {
  store: GatewayStore;
  broker: ApprovalBroker;
  governor: RateGovernor;
  clock: Clock;
  logger: Logger;
  metrics?: GatewayMetrics;
  /** Pricing of a model, for the cost on the final line. */
  pricingOf?: (provider: string, modelId: string) => Pricing | undefined;
  /** Masks secrets in every live reply and title. */
  redactor?: SecretRedactor;
  /** True while the process shuts down: an aborted Task's reply is then left open for Continue. */
  closing: () => boolean;
  /** Tokens, cost and duration under each finished reply (`reply.usage_footer`). */
  usageFooter?: boolean;
}

/** Title requests in flight at once. */
const TITLE_CONCURRENCY = 2;
/** Titles waiting past this many: the oldest is dropped (its conversation keeps the first-line title). */
const TITLE_QUEUE_LIMIT = 1000;

export class TaskRunner {
  private readonly titling = new Set<Promise<void>>();
  private readonly titleQueue: (() => Promise<void>)[] = [];
  /** Tasks started whose first model request has not gone out yet. */
  private starting = 0;

  constructor(private readonly o: TaskRunnerOptions) {}

  /**
   * Resolves when every title request started so far is answered and written (shutdown waits for them);
   * titles still queued are dropped (their conversations keep the first-line title).
   */
  async titlesSettled(): Promise<void> {
    this.titleQueue.length = 0;
    await Promise.all([...this.titling]);
  }

  /** Title requests queued or in flight. */
  get titlesPending(): number {
    return this.titling.size + this.titleQueue.length;
  }

  private queueTitle(job: () => Promise<void>): void {
    this.titleQueue.push(job);
    if (this.titleQueue.length > TITLE_QUEUE_LIMIT) this.titleQueue.shift();
    this.pumpTitles();
  }

  private pumpTitles(): void {
    while (this.starting === 0 && this.titling.size < TITLE_CONCURRENCY && this.titleQueue.length > 0) {
      const p = (this.titleQueue.shift() as () => Promise<void>)();
      this.titling.add(p);
      void p.finally(() => {
        this.titling.delete(p);
        this.pumpTitles();
      });
    }
  }

  /**
   * Counts a message as on its way to a model request until the returned function is called (by `run` once
   * the model answers the Task's first request, or by whoever dropped the message); titles wait while any is.
   */
  enterStarting(): () => void {
    this.starting++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.starting--;
      this.pumpTitles();
    };
  }

  /**
   * `typingSent`: the inbound handler already showed "typing…" for this message. `requested`: the caller's
   * `enterStarting()` for this message (else the Task counts itself from here).
   */
  async run(entry: Entry, running: RunningTask, input: OmniMessage[], user: ChatUser, typingSent: boolean, requested = this.enterStarting()): Promise<TaskOutcome> {
    const { adapter, thread, isDM, session } = entry;
    const platform = adapter.platform;
    const started = this.o.clock.now();
    const renderer = new ReplyRenderer({
      adapter,
      thread,
      isDM,
      clock: this.o.clock,
      governor: this.o.governor,
      store: this.o.store,
      logger: this.o.logger,
      sessionId: session.id,
      taskId: running.taskId,
      pricing: this.o.pricingOf?.(session.model.provider, session.model.modelId),
      stopPayload: encodeActionPayload({ kind: 'stop', taskId: running.taskId }),
      redactor: this.o.redactor,
      usageFooter: this.o.usageFooter,
    });
    const typing = keepTyping(this.o.governor, this.o.clock, adapter, thread, adapter.limits.typingRenewMs, typingSent);
    const scheduled = running.scheduled;
    const approve = this.o.broker.approverFor({
      sessionId: session.id,
      taskId: running.taskId,
      requester: running.requester,
      requesterName: scheduled ? `schedule ${scheduled.name}` : user.name,
      approvers: entry.route.approvers,
      adapter,
      thread,
      mode: scheduled ? async () => scheduled.mode : async () => (await this.o.store.getSession(session.id))?.approval_mode ?? entry.route.approval_mode,
      ...(scheduled ? { schedule: scheduled.name, anyoneMayDecide: scheduled.openToThread } : {}),
      permissionOf: (name) => session.toolPermission(name),
      reachOf: (call) => session.toolReach(call),
      sessionGrants: entry.sessionGrants,
      onPending: async (toolCallId, origin) => {
        renderer.push({ kind: 'approval_pending', toolCallId, origin });
        await renderer.flush();
      },
      onResolved: (toolCallId, origin) => renderer.push({ kind: 'approval_resolved', toolCallId, origin }),
      signal: running.abort.signal,
    });
    if (running.inbound) renderer.note('inbound', `message ${running.inbound.messageId} from ${user.name} (event ${running.inbound.eventId})`, null, running.inbound.sentAt);
    renderer.note('task_started', scheduled ? `schedule ${scheduled.name}` : `asked by ${running.requester}`, null, started);
    this.o.metrics?.taskStarted(platform);
    await this.o.store.updateSession(session.id, { status: 'running' });
    // Before the run: every usage row of this Task is attributed to its requester from this record.
    await this.o.store.recordTaskRun({ task_id: running.taskId, session_id: session.id, requester: running.requester, started_at: started }).catch((err: unknown) => this.o.logger.warn({ err }, 'task run not recorded'));
    // The first-line title is written once the model is answering, never in front of the run (a message sent
    // meanwhile must find the run started, to steer into it) nor of its request (a thousand chats opening at once
    // would each wait for every other's title first).
    let titling: Promise<string | undefined> | undefined;
    const title = (): Promise<string | undefined> =>
      (titling ??= this.fallbackTitle(entry, input).catch((err: unknown) => {
        this.o.logger.warn({ err }, 'title not recorded');
        return undefined;
      }));
    let status: TaskOutcome['status'] = 'completed';
    let reason: string | undefined;
    let deliveryError: string | undefined;
    try {
      let asked = false;
      for await (const msg of session.run(input, { approve, signal: running.abort.signal })) {
        // Whatever follows the request's start is the model answering: the request is out.
        if (asked) {
          requested();
          void title();
        } else asked = isPayload(msg, 'request_begin');
        renderer.push(msg);
        if (isPayload(msg, 'abort')) {
          status = 'aborted';
          reason = msg.payload.reason ?? undefined;
        }
        if (isPayload(msg, 'request_end') && msg.payload.status === 'auth') status = 'auth';
      }
    } catch (err) {
      status = 'failed';
      reason = 'internal error in the gateway';
      this.o.logger.error({ err, sessionId: session.id }, 'task failed inside the gateway');
      renderer.push(b.abort('internal error in the gateway'));
    } finally {
      requested();
      typing.stop();
      const { result: shown, platformProblem } = await renderer.finish({ interrupted: this.o.closing() && status === 'aborted' });
      if (!shown.ok && shown.reason === 'failed') deliveryError = shown.error.message;
      // The platform problem goes with the status: one write where a reply otherwise made two.
      await this.o.store
        .updateSession(session.id, { status: 'idle', ...(platformProblem !== undefined ? { platform_problem: platformProblem } : {}) })
        .catch((err: unknown) => this.o.logger.warn({ err }, 'session update failed'));
      this.o.metrics?.taskFinished(platform, status, this.o.clock.now() - started);
    }
    // The model's title comes after the first reply, so it never competes with the first token.
    const needsTitle = await title();
    if (needsTitle !== undefined) {
      const assistant = answerText(renderer.liveView);
      this.queueTitle(() => this.modelTitle(entry, needsTitle, assistant).catch((err: unknown) => this.o.logger.warn({ err }, 'title not recorded')));
    }
    return { status, ...(reason !== undefined ? { reason } : {}), ...(deliveryError !== undefined ? { deliveryError } : {}) };
  }

  /** At the first Task: the first line as the title; returns the user text when a model title should follow. */
  private async fallbackTitle(entry: Entry, input: OmniMessage[]): Promise<string | undefined> {
    const row = await this.o.store.getSession(entry.session.id);
    if (!row || row.title) return undefined;
    const text = input.filter((m) => isPayload(m, 'text')).map((m) => (m.payload as { text: string }).text).join('\n');
    if (text.trim() === '') return undefined;
    const title = fallbackTitle(text);
    await this.o.store.updateSession(entry.session.id, { title });
    this.showTitle(entry, this.o.redactor?.redact(title) ?? title);
    return text;
  }

  /** Where the platform shows conversation titles, it gets the session's; a failure only costs the title. */
  private showTitle(entry: Entry, title: string): void {
    entry.adapter.setTitle?.(entry.thread, title).catch((err: unknown) => this.o.logger.warn({ err: entry.adapter.classify(err).message }, 'conversation title not shown'));
  }

  private async modelTitle(entry: Entry, user: string, assistant: string): Promise<void> {
    const generated = await entry.session.generateTitle({ user, assistant, onUsage: (u) => void this.recordTitleUsage(entry, u) });
    const title = generated && (this.o.redactor?.redact(generated) ?? generated);
    if (!title) return;
    await this.o.store.updateSession(entry.session.id, { title }).catch(() => undefined);
    this.showTitle(entry, title);
  }

  /** A title request is billed like any other but is in no trace: the row goes to the journal as well. */
  private async recordTitleUsage(entry: Entry, u: BareUsage): Promise<void> {
    const ts = Date.parse(u.timestamp);
    this.o.metrics?.modelRequest(u.status);
    await this.o.store
      .recordUsage({
        ts,
        project_id: entry.route.project,
        agent_id: entry.route.agent,
        session_id: entry.session.id,
        origin_session_id: null,
        route: entry.route.name,
        platform: entry.adapter.platform,
        provider: entry.session.model.provider,
        model_id: entry.session.model.modelId,
        ...(u.counts ? { counts: u.counts } : {}),
        status: u.status,
        untraced: true,
      })
      .catch((err: unknown) => this.o.logger.warn({ err }, 'title usage row not recorded'));
  }
}
