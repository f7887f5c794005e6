/**
 * SessionManager (gateway.md §3, §7): binding key → one runtime entry per conversation, its session created
 * on the first message or resumed from its trace. One Task at a time per session: a message during a Task
 * is steered in (👀) or queued. Stop denies pending approvals, then aborts. Idle entries are evicted after
 * `idle_evict_ms` and sooner under memory pressure (see memory-pressure.ts). A scheduled run waits until
 * its conversation is idle, then runs in a fresh or a given session that the conversation continues in.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { encodeActionPayload } from '../../adapters/contract/action-payload';
import type { TimerHandle } from '../../adapters/contract/clock';
import type { ChatUser, InboundMessage } from '../../adapters/contract/messages';
import { bindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import * as b from '../../core/omnimessage/builders';
import { isPayload } from '../../core/omnimessage/guards';
import { randomHex } from '../../core/random-hex';
import type { OmniMessage } from '../../core/omnimessage/types';
import { isApprovalMode, type ApprovalMode } from '../../core/state';
import { userRef, type Conversation, type Entry, type RunningTask, type ScheduledTaskRun } from './conversation';
import { prepareInput } from './inbound-input';
import { SessionOpener } from './session-opener';
import { TaskRunner } from './task-runner';
import { showTyping } from './typing';
import { pressureVictims, v8Memory } from './memory-pressure';
import { modeRefusal, runningTaskViews, statusText, unknownModeText } from './session-status';
import { acknowledgeSteering } from './steering-ack';
import type { ScheduledJob, ScheduledResult, SessionManagerOptions, RunningTaskView } from './session-manager-types';
export type { Conversation } from './conversation';
export type { RunningTaskView, ScheduledJob, ScheduledResult, SessionManagerOptions } from './session-manager-types';

const newTaskId = () => `t${randomHex(6)}`;
/** Who "sent" a scheduled Task's input (the engine's `sender: "server"`). */
const SCHEDULE_USER: ChatUser = { id: 'schedule', name: 'schedule' };

export class SessionManager {
  private readonly entries = new Map<string, Entry>();
  /** Sessions being disposed, by conversation key, so a new message waits for the flush before resuming. */
  private readonly disposing = new Map<string, Promise<void>>();
  private readonly tasks = new Map<string, Entry>();
  /** Entries a message is being prepared for (attachments, steering): never evicted meanwhile. */
  private readonly handling = new Map<Entry, number>();
  /** Continue buttons offered by this process: id → binding key. */
  private readonly continuations = new Map<string, Conversation & { key: string }>();
  private readonly opener: SessionOpener;
  private readonly runner: TaskRunner;
  private readonly memory: () => { heapUsed: number; budget: number };
  private evictTimer?: TimerHandle;
  private closing = false;

  constructor(private readonly o: SessionManagerOptions) {
    this.opener = new SessionOpener({ store: o.store, pool: o.pool, clock: o.clock, logger: o.logger });
    this.runner = new TaskRunner({ ...o, closing: () => this.closing, usageFooter: o.config.reply.usage_footer });
    this.memory = o.memory ?? v8Memory(o.config.sessions.heap_budget_mb);
  }

  /** Running Tasks (for /readyz, metrics and shutdown). */
  get runningCount(): number {
    return this.tasks.size;
  }

  /** Running Tasks and their follow-up work (title requests): what an idle gateway has none of. */
  get busy(): boolean {
    return this.tasks.size > 0 || this.runner.titlesPending > 0;
  }

  /** Sessions held in memory. */
  get inMemory(): number {
    return this.entries.size;
  }

  /** Whether the conversation with this binding key has its session in memory. */
  holds(key: string): boolean {
    return this.entries.has(key);
  }

  /** A message addressed to the bot in a conversation. */
  async handleMessage(conv: Conversation, msg: InboundMessage): Promise<void> {
    if (this.closing) return;
    // From here until its Task's first model request, the message holds title requests back.
    const requested = this.runner.enterStarting();
    let handedOver = false;
    try {
      handedOver = await this.deliver(conv, msg, requested);
    } finally {
      if (!handedOver) requested();
    }
  }

  /** True when a Task was started for the message (it then calls `requested`). */
  private async deliver(conv: Conversation, msg: InboundMessage, requested: () => void): Promise<boolean> {
    const entry = await this.entryFor(conv, msg.user);
    if (typeof entry === 'string') {
      await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚠️ ${entry}` });
      return false;
    }
    this.handling.set(entry, (this.handling.get(entry) ?? 0) + 1);
    try {
      return await this.deliverTo(entry, conv, msg, requested);
    } finally {
      const left = (this.handling.get(entry) ?? 1) - 1;
      if (left > 0) this.handling.set(entry, left);
      else this.handling.delete(entry);
    }
  }

  private async deliverTo(entry: Entry, conv: Conversation, msg: InboundMessage, requested: () => void): Promise<boolean> {
    entry.lastActive = this.o.clock.now();
    entry.lastUser = msg.user;
    if (entry.modelProblem) {
      await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚙️ I can't answer yet: ${entry.modelProblem.problem}. The operator can set one up (\`penguin-gateway doctor\` says how).` });
      return false;
    }
    const prepared = await prepareInput(msg, entry.session.scratchpadDir, entry.session.model.vision ?? true);
    if (prepared.skipped.length > 0) {
      await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚠️ Some attachments were left out:\n${prepared.skipped.map((s) => `- ${s}`).join('\n')}` });
    }
    if (prepared.messages.length === 0) return false;
    if (entry.running) {
      requested();
      const textOf = prepared.messages.filter((m) => isPayload(m, 'text')).map((m) => (m.payload as { text: string }).text).join('\n');
      const images = prepared.messages.filter((m) => isPayload(m, 'image_url')).map((m) => (m.payload as { image_url: string }).image_url);
      const steered = entry.session.steer(textOf, images);
      if (steered !== false) {
        await acknowledgeSteering(this.o.outbox, this.o.logger, conv, msg);
        return true;
      }
      entry.queue.push({ input: prepared.messages, user: msg.user });
      return true;
    }
    this.startTask(entry, prepared.messages, msg.user, { typingSent: true, requested, inbound: { messageId: msg.messageId, eventId: msg.eventId, sentAt: msg.sentAt } });
    return true;
  }

  /** `/stop`: only the Task's starter or an approver may stop it. */
  async stop(conv: Pick<Conversation, 'thread'>, actor: string): Promise<'stopped' | 'not_running' | 'not_allowed'> {
    const entry = this.entries.get(bindingKey(conv.thread));
    if (!entry?.running) return 'not_running';
    return this.stopTask(entry.running.taskId, actor);
  }

  /** The Stop button: only the requester or an approver may press it. */
  async stopTask(taskId: string, actor: string): Promise<'stopped' | 'not_running' | 'not_allowed'> {
    const entry = this.tasks.get(taskId);
    if (!entry?.running || entry.running.taskId !== taskId) return 'not_running';
    if (!this.mayControl(entry, actor)) return 'not_allowed';
    entry.queue = [];
    await this.abortTask(entry, 'aborted by user');
    return 'stopped';
  }

  /** The operator's stop (dashboard, admin API): no requester check, the admin decides for every route. */
  async stopSession(sessionId: string, reason = 'aborted by the operator'): Promise<'stopped' | 'not_running'> {
    const entry = [...this.tasks.values()].find((e) => e.session.id === sessionId);
    if (!entry?.running) return 'not_running';
    entry.queue = [];
    await this.abortTask(entry, reason);
    return 'stopped';
  }

  /** Every running Task, oldest first, for the dashboard. */
  runningTasks(): RunningTaskView[] {
    return runningTaskViews([...this.tasks.values()]);
  }

  /** `/new`: the conversation gets a fresh session on its next message; the old one stays resumable. */
  async newSession(conv: Conversation, actor: string): Promise<'started' | 'not_allowed'> {
    const key = bindingKey(conv.thread);
    const entry = this.entries.get(key);
    if (entry?.running && !this.mayControl(entry, actor)) return 'not_allowed';
    if (entry?.running) await this.abortTask(entry, 'a new session was started');
    if (entry) await this.evict(entry);
    await this.o.store.unbind(key);
    return 'started';
  }

  /** `/mode <mode>` for the conversation's session (who may make approvals laxer: `modeRefusal`). */
  async setMode(conv: Conversation, mode: string, o: { mayWiden: boolean }): Promise<string> {
    if (!isApprovalMode(mode)) return unknownModeText(mode);
    const entry = await this.entryFor(conv);
    if (typeof entry === 'string') return entry;
    const current = (await this.o.store.getSession(entry.session.id))?.approval_mode ?? conv.route.approval_mode;
    const refused = modeRefusal(mode, current, conv.route.approvers, o.mayWiden);
    if (refused) return refused;
    await this.o.store.updateSession(entry.session.id, { approval_mode: mode });
    return `Approval mode for this conversation: ${mode}.`;
  }

  private mayControl(entry: Entry, actor: string): boolean {
    return !entry.running || entry.running.scheduled?.openToThread === true || actor === entry.running.requester || entry.route.approvers.includes(actor);
  }

  async status(conv: Conversation): Promise<string> {
    const key = bindingKey(conv.thread);
    const sid = this.entries.get(key)?.session.id ?? (await this.o.store.resolveBinding(key));
    if (!sid) return `No session yet in this conversation. Route: ${conv.route.name} (${conv.route.project}/${conv.route.agent}).`;
    const row = await this.o.store.getSession(sid);
    const entry = this.entries.get(key);
    return statusText(conv, sid, row, entry);
  }

  /** After a restart (or takeover, `cause` says): tell a conversation its reply was cut off (or never sent) and offer Continue. */
  async offerContinue(conv: Conversation, o: { replyShown: boolean; cause?: string } = { replyShown: true }): Promise<void> {
    const id = `c${randomHex(6)}`;
    this.continuations.set(id, { ...conv, key: bindingKey(conv.thread) });
    await this.o.outbox.post(conv.adapter, conv.thread, {
      text: `⚠️ ${o.cause ?? 'The gateway restarted'} ${o.replyShown ? 'while I was working on this, so the reply above is incomplete.' : 'before I could send my reply.'}`,
      buttons: [{ label: 'Continue', payload: encodeActionPayload({ kind: 'continue', continuationId: id }), style: 'primary' }],
    });
  }

  /** The Continue button: a continuation Task on the resumed session. */
  async continueTask(continuationId: string, user: ChatUser): Promise<'started' | 'unknown' | 'busy'> {
    const c = this.continuations.get(continuationId);
    if (!c) return 'unknown';
    const entry = await this.entryFor(c, user);
    if (typeof entry === 'string') return 'unknown';
    if (entry.running) return 'busy';
    this.continuations.delete(continuationId);
    this.startTask(entry, [b.userText('Continue where you left off.')], user);
    return 'started';
  }

  startEviction(): void {
    const every = Math.max(1000, Math.min(60_000, this.o.config.sessions.idle_evict_ms / 2));
    const tick = () => {
      void this.evictIdle();
      this.evictTimer = this.o.clock.setTimeout(tick, every);
    };
    this.evictTimer = this.o.clock.setTimeout(tick, every);
  }

  /** Idle sessions past `idle_evict_ms`, then, while the heap is past its budget, a share of the rest. */
  async evictIdle(): Promise<number> {
    const cutoff = this.o.clock.now() - this.o.config.sessions.idle_evict_ms;
    const idle = [...this.entries.values()].filter((e) => this.isIdle(e) && e.lastActive < cutoff);
    await Promise.all(idle.map((e) => this.evict(e)));
    return idle.length + (await this.relievePressure());
  }

  /**
   * Memory pressure: the least recently active idle sessions go while more than `max_in_memory` are held,
   * and a share of them when the heap is past its budget. Returns how many went.
   */
  async relievePressure(): Promise<number> {
    const m = this.memory();
    const gone = pressureVictims([...this.entries.values()], (e) => this.isIdle(e), this.o.config.sessions.max_in_memory, m);
    if (gone.length > 0) this.o.logger.info({ evicted: gone.length, inMemory: this.entries.size, heapUsed: m.heapUsed, budget: m.budget }, 'memory pressure: idle sessions evicted');
    await Promise.all(gone.map((e) => this.evict(e)));
    return gone.length;
  }

  private isIdle(e: Entry): boolean {
    return !e.running && e.queue.length === 0 && !this.handling.has(e) && !this.opener.inFlight(e.key);
  }

  /** Abort every Task with `reason`, wait for the replies to settle (bounded by the caller), release sessions. */
  async shutdown(reason: string): Promise<void> {
    this.closing = true;
    if (this.evictTimer) this.o.clock.clearTimeout(this.evictTimer);
    const running = [...this.entries.values()].filter((e) => e.running);
    await Promise.all(running.map((e) => {
      e.queue = [];
      return this.abortTask(e, reason);
    }));
    // A title on its way is the session's name in every list: let it land before the sessions go.
    await this.runner.titlesSettled();
    await Promise.all([...this.entries.values()].map((e) => this.evict(e)));
  }

  private async abortTask(entry: Entry, reason: string): Promise<void> {
    const running = entry.running;
    if (!running) return;
    await this.o.broker.cancelTask(running.taskId, reason);
    running.abort.abort(reason);
    await running.done;
  }

  private async evict(entry: Entry): Promise<void> {
    if (this.entries.get(entry.key) !== entry) return;
    this.entries.delete(entry.key);
    entry.unsubscribeNotices();
    const done = entry.session.dispose().catch((err: unknown) => this.o.logger.warn({ err }, 'session dispose failed'));
    this.disposing.set(entry.key, done);
    await done;
    if (this.disposing.get(entry.key) === done) this.disposing.delete(entry.key);
  }

  private async entryFor(conv: Conversation, user?: ChatUser): Promise<Entry | string> {
    const key = bindingKey(conv.thread);
    const have = this.entries.get(key);
    if (have) return have;
    // A session still closing is resumed only once its trace is flushed: one writer per trace file at a time.
    await this.disposing.get(key);
    const now = this.entries.get(key);
    if (now) return now;
    return this.opener.open(conv, key, user, (entry) => this.adopt(entry, key));
  }

  /** A freshly opened entry becomes the conversation's. */
  private adopt(entry: Entry, key: string): void {
    // Background work that finishes while no Task runs starts one, so its report reaches the chat.
    entry.unsubscribeNotices = entry.session.onIdleNotice(() => {
      if (!entry.running && !this.closing && this.entries.get(key) === entry) this.startTask(entry, [], entry.lastUser);
    });
    this.entries.set(key, entry);
    if (this.entries.size > this.o.config.sessions.max_in_memory) void this.relievePressure();
  }

  /** The conversation lets go of an idle entry at once; its session is released in the background. */
  private detach(entry: Entry): void {
    void this.evict(entry);
  }

  /** Drops the conversation's idle session from memory (another instance may have run it since: resume reads its trace). */
  async forget(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (e && this.isIdle(e)) await this.evict(e);
  }

  /**
   * A scheduled run in `conv`: once the conversation is idle (a Task someone started there finishes first),
   * its Task runs in the session `job.open` names (fresh, or a given one), which the conversation is bound
   * to from then on, so a reply in the thread continues it. Resolves when the Task has ended.
   */
  async runScheduled(conv: Conversation, job: ScheduledJob): Promise<ScheduledResult> {
    const closing = { ok: false, error: 'the gateway is shutting down', shuttingDown: true } as const;
    if (this.closing) return closing;
    const key = bindingKey(conv.thread);
    for (;;) {
      const wait = this.entries.get(key)?.running?.done ?? this.opener.inFlight(key);
      if (!wait) break;
      await wait.catch(() => undefined);
      if (this.closing) return closing;
    }
    const scheduled: ScheduledTaskRun = { ...job.schedule, openToThread: conv.adapter.place(conv.thread).direct };
    let running: RunningTask | undefined;
    // Started in the same turn the entry appears, so a message arriving meanwhile steers into it.
    // A shutdown that began while the session was opening found nothing to abort: start nothing then.
    const launch = (e: Entry) => {
      if (!e.modelProblem && !this.closing) running = this.startTask(e, job.input, SCHEDULE_USER, { scheduled });
    };
    const have = this.entries.get(key);
    let entry: Entry | string;
    if (have && job.open.kind === 'session' && have.session.id === job.open.sessionId) {
      entry = have;
      launch(have);
    } else {
      if (have) this.detach(have);
      entry = await this.opener.open(conv, key, undefined, (e) => {
        this.adopt(e, key);
        launch(e);
      }, job.open);
    }
    if (typeof entry === 'string') return { ok: false, error: entry };
    if (this.closing && !running) return { ...closing, sessionId: entry.session.id };
    const started = running as RunningTask | undefined;
    if (!started) return { ok: false, sessionId: entry.session.id, error: `the agent's model cannot be called: ${entry.modelProblem?.problem ?? 'unknown'}` };
    const target = entry;
    const timer = this.o.clock.setTimeout(() => {
      if (target.running === started) void this.abortTask(target, job.maxDurationReason);
    }, job.maxDurationMs);
    try {
      await job.onStarted(target.session.id);
      await started.done;
    } finally {
      this.o.clock.clearTimeout(timer);
    }
    return { ok: true, sessionId: target.session.id, outcome: started.outcome ?? { status: 'failed', reason: 'the Task did not report how it ended' } };
  }

  /** `typingSent`: the inbound handler already showed "typing…" for this message. */
  /** `requested`: the message's `enterStarting()`, handed to the runner (which calls it at the first request). */
  private startTask(entry: Entry, input: OmniMessage[], user: ChatUser, o: { typingSent?: boolean; scheduled?: ScheduledTaskRun; requested?: () => void; inbound?: RunningTask['inbound'] } = {}): RunningTask {
    const taskId = newTaskId();
    const abort = new AbortController();
    const requester = o.scheduled ? `schedule:${o.scheduled.id}` : userRef(entry.adapter.platform, user);
    const running: RunningTask = { taskId, abort, requester, startedAt: this.o.clock.now(), done: Promise.resolve(), ...(o.scheduled ? { scheduled: o.scheduled } : {}), ...(o.inbound ? { inbound: o.inbound } : {}) };
    entry.running = running;
    this.tasks.set(taskId, entry);
    running.done = this.runner.run(entry, running, input, user, o.typingSent === true, o.requested).then((outcome) => {
      running.outcome = outcome;
    }).finally(() => {
      this.tasks.delete(taskId);
      if (entry.running === running) entry.running = undefined;
      entry.lastActive = this.o.clock.now();
      const next = entry.queue.shift();
      if (next && !this.closing) this.startTask(entry, next.input, next.user);
    });
    return running;
  }

  /** "typing…" once, if the shared budget has a token free now (the inbound handler's first signal). */
  showTyping(adapter: ChannelAdapter, thread: ThreadRef): Promise<boolean> {
    return showTyping(this.o.governor, adapter, thread);
  }
}

export type { ApprovalMode };
