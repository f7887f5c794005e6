/**
 * SessionManager (gateway.md §3, §7): binding key → one runtime entry per conversation. A conversation's
 * session is created on its first message with the route's agent, or resumed from its trace when the
 * process has none in memory. One Task at a time per session: a message that arrives while a Task runs is
 * steered in (👀), or queued to run right after when steering is closed. Stop denies pending approvals,
 * then aborts. Idle entries are evicted (their traces keep them resumable).
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { encodeActionPayload } from '../../adapters/contract/action-payload';
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { ChatUser, InboundMessage } from '../../adapters/contract/messages';
import { bindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import { answerText, type Pricing, type RateGovernor, type SecretRedactor } from '../../adapters/render';
import type { Session } from '../../core/agent';
import { fallbackTitle } from '../../core/agent/title';
import * as b from '../../core/omnimessage/builders';
import { isPayload } from '../../core/omnimessage/guards';
import type { OmniMessage } from '../../core/omnimessage/types';
import { isApprovalMode, widensApproval, type ApprovalMode } from '../../core/state';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import type { GatewayConfig, ResolvedRoute } from '../config';
import type { GatewayStore } from '../store';
import { usageRowFromMessage } from '../store';
import type { AgentPool } from './agent-pool';
import { SessionGrants, type ApprovalBroker } from './approval-broker';
import { prepareInput } from './inbound-input';
import type { Outbox } from './outbox';
import { ReplyRenderer } from './reply-renderer';

export interface Conversation {
  adapter: ChannelAdapter;
  thread: ThreadRef;
  isDM: boolean;
  route: ResolvedRoute;
}

interface RunningTask {
  taskId: string;
  abort: AbortController;
  requester: string;
  done: Promise<void>;
}

interface Entry extends Conversation {
  key: string;
  session: Session;
  sessionGrants: SessionGrants;
  running?: RunningTask;
  queue: { input: OmniMessage[]; user: ChatUser }[];
  lastActive: number;
  lastUser: ChatUser;
  unsubscribeNotices: () => void;
}

export interface SessionManagerOptions {
  config: GatewayConfig;
  store: GatewayStore;
  pool: AgentPool;
  broker: ApprovalBroker;
  outbox: Outbox;
  governor: RateGovernor;
  clock: Clock;
  logger: Logger;
  metrics?: GatewayMetrics;
  /** Pricing of a model, for the cost on the final line. */
  pricingOf?: (provider: string, modelId: string) => Pricing | undefined;
  /** Masks secrets in every live reply. */
  redactor?: SecretRedactor;
}

const newTaskId = () => `t${randomBytes(6).toString('hex')}`;
const userRef = (platform: string, u: ChatUser) => `${platform}:${u.id}`;

export class SessionManager {
  private readonly entries = new Map<string, Entry>();
  /** Serializes entry creation per binding key, so two first messages make one session. */
  private readonly opening = new Map<string, Promise<Entry | string>>();
  private readonly tasks = new Map<string, Entry>();
  /** Continue buttons offered by this process: id → binding key. */
  private readonly continuations = new Map<string, Conversation & { key: string }>();
  private evictTimer?: TimerHandle;
  private closing = false;

  constructor(private readonly o: SessionManagerOptions) {}

  /** Running Tasks (for /readyz, metrics and shutdown). */
  get runningCount(): number {
    return this.tasks.size;
  }

  // ------------------------------------------------------------------ inbound
  /** A message addressed to the bot in a conversation. */
  async handleMessage(conv: Conversation, msg: InboundMessage): Promise<void> {
    if (this.closing) return;
    const entry = await this.entryFor(conv, msg.user);
    if (typeof entry === 'string') {
      await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚠️ ${entry}` });
      return;
    }
    entry.lastActive = this.o.clock.now();
    entry.lastUser = msg.user;
    const prepared = await prepareInput(msg, entry.session.scratchpadDir, entry.session.model.vision ?? true);
    if (prepared.skipped.length > 0) {
      await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚠️ Some attachments were left out:\n${prepared.skipped.map((s) => `- ${s}`).join('\n')}` });
    }
    if (prepared.messages.length === 0) return;
    if (entry.running) {
      const textOf = prepared.messages.filter((m) => isPayload(m, 'text')).map((m) => (m.payload as { text: string }).text).join('\n');
      const images = prepared.messages.filter((m) => isPayload(m, 'image_url')).map((m) => (m.payload as { image_url: string }).image_url);
      const steered = entry.session.steer(textOf, images);
      if (steered !== false) {
        await this.acknowledge(conv, msg);
        return;
      }
      entry.queue.push({ input: prepared.messages, user: msg.user });
      return;
    }
    this.startTask(entry, prepared.messages, msg.user, { typingSent: true });
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
    await this.abortTask(entry, 'stopped by user');
    return 'stopped';
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

  /**
   * `/mode <mode>`: anyone may make tool approvals stricter; making them laxer than the session's current
   * mode takes an approver in chat (`mayWiden`), else the operator (config, admin API).
   */
  async setMode(conv: Conversation, mode: string, o: { mayWiden: boolean }): Promise<string> {
    if (!isApprovalMode(mode)) return `Unknown mode "${mode}". Use one of: allow-all, deny-all, read-only, always-ask.`;
    const entry = await this.entryFor(conv);
    if (typeof entry === 'string') return entry;
    const current = (await this.o.store.getSession(entry.session.id))?.approval_mode ?? conv.route.approval_mode;
    if (!o.mayWiden && widensApproval(current, mode)) {
      return conv.route.approvers.length > 0
        ? `Only this route's approvers can make tool approvals laxer (now: ${current}). You may choose a stricter mode.`
        : `Making tool approvals laxer (now: ${current}) is for the operator: the route's approval_mode in the gateway config, or the admin API. You may choose a stricter mode.`;
    }
    await this.o.store.updateSession(entry.session.id, { approval_mode: mode });
    return `Approval mode for this conversation: ${mode}.`;
  }

  private mayControl(entry: Entry, actor: string): boolean {
    return !entry.running || actor === entry.running.requester || entry.route.approvers.includes(actor);
  }

  async status(conv: Conversation): Promise<string> {
    const key = bindingKey(conv.thread);
    const sid = this.entries.get(key)?.session.id ?? (await this.o.store.resolveBinding(key));
    if (!sid) return `No session yet in this conversation. Route: ${conv.route.name} (${conv.route.project}/${conv.route.agent}).`;
    const row = await this.o.store.getSession(sid);
    const entry = this.entries.get(key);
    const lines = [
      `Session: ${sid}${row?.title ? ` — ${row.title}` : ''}`,
      `Agent: ${conv.route.project}/${conv.route.agent} · mode: ${row?.approval_mode ?? conv.route.approval_mode}`,
      `Status: ${entry?.running ? 'running' : 'idle'}${entry?.queue.length ? ` · ${entry.queue.length} queued` : ''}`,
    ];
    if (row && row.total > 0) lines.push(`Tokens so far: ${row.total}`);
    return lines.join('\n');
  }

  /** After a restart: tell a conversation its reply was cut off and offer a Continue button. */
  async offerContinue(conv: Conversation): Promise<void> {
    const id = `c${randomBytes(6).toString('hex')}`;
    this.continuations.set(id, { ...conv, key: bindingKey(conv.thread) });
    await this.o.outbox.post(conv.adapter, conv.thread, {
      text: '⚠️ The gateway restarted while I was working on this, so the reply above is incomplete.',
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

  // ------------------------------------------------------------------ lifecycle
  startEviction(): void {
    const every = Math.max(1000, Math.min(60_000, this.o.config.sessions.idle_evict_ms / 2));
    const tick = () => {
      void this.evictIdle();
      this.evictTimer = this.o.clock.setTimeout(tick, every);
    };
    this.evictTimer = this.o.clock.setTimeout(tick, every);
  }

  async evictIdle(): Promise<number> {
    const cutoff = this.o.clock.now() - this.o.config.sessions.idle_evict_ms;
    const idle = [...this.entries.values()].filter((e) => !e.running && e.queue.length === 0 && e.lastActive < cutoff);
    await Promise.all(idle.map((e) => this.evict(e)));
    return idle.length;
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
    await Promise.all([...this.entries.values()].map((e) => this.evict(e)));
  }

  // ------------------------------------------------------------------ internals
  private async acknowledge(conv: Conversation, msg: InboundMessage): Promise<void> {
    try {
      if (conv.adapter.react) await conv.adapter.react({ thread: conv.thread, messageId: msg.messageId }, '👀');
      else await this.o.outbox.post(conv.adapter, conv.thread, { text: '👀 Got it — adding that to the running task.' });
    } catch (err) {
      this.o.logger.debug({ err: (err as Error).message }, 'steering acknowledgement failed');
    }
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
    await entry.session.dispose().catch((err: unknown) => this.o.logger.warn({ err }, 'session dispose failed'));
  }

  private entryFor(conv: Conversation, user?: ChatUser): Promise<Entry | string> {
    const key = bindingKey(conv.thread);
    const have = this.entries.get(key);
    if (have) return Promise.resolve(have);
    let p = this.opening.get(key);
    if (!p) {
      p = this.open(conv, key, user).finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  private async workspaceFor(route: ResolvedRoute, agentDir: string, thread: ThreadRef): Promise<string | undefined> {
    if (route.workspace_policy === 'fixed' && route.workspace_path) return route.workspace_path;
    if (route.workspace_policy === 'per_channel') {
      const chan =
        thread.platform === 'slack' ? `${thread.team}:${thread.channel}`
          : thread.platform === 'discord' ? `${thread.guild ?? 'dm'}:${thread.channel}`
            : thread.platform === 'telegram' ? thread.chat
              : thread.conversation;
      const dir = join(agentDir, `${thread.platform}-${createHash('sha256').update(chan).digest('hex').slice(0, 12)}`);
      await mkdir(dir, { recursive: true });
      return dir;
    }
    return undefined;
  }

  private async open(conv: Conversation, key: string, user?: ChatUser): Promise<Entry | string> {
    const loaded = await this.o.pool.get(conv.route.project, conv.route.agent, conv.route.tools.network);
    if (!loaded.ok) {
      this.o.logger.error({ route: conv.route.name, errors: loaded.errors.map((e) => e.message) }, 'agent could not be loaded');
      return `This conversation's agent (${conv.route.project}/${conv.route.agent}) could not be loaded. The operator has the details in the gateway log.`;
    }
    const { agent, state } = loaded;
    let session: Session | undefined;
    const bound = await this.o.store.resolveBinding(key);
    if (bound) {
      const resumed = await agent.resumeSession(bound);
      if (resumed.ok) session = resumed.session;
      else this.o.logger.warn({ sessionId: bound, error: resumed.error }, 'bound session could not be resumed; starting a new one');
    }
    if (!session) {
      const workspace = await this.workspaceFor(conv.route, state.paths.workspacesDir, conv.thread);
      session = await agent.createSession(workspace ? { workspace } : {});
      await this.o.store.createSession({
        session_id: session.id,
        project_id: conv.route.project,
        agent_id: conv.route.agent,
        route: conv.route.name,
        platform: conv.adapter.platform,
        binding_key: key,
        approval_mode: conv.route.approval_mode,
        created_at: this.o.clock.now(),
      });
      await this.o.store.bind(key, session.id);
    }
    const entry: Entry = {
      ...conv,
      key,
      session,
      sessionGrants: new SessionGrants(),
      queue: [],
      lastActive: this.o.clock.now(),
      lastUser: user ?? { id: 'unknown' },
      unsubscribeNotices: () => undefined,
    };
    // Background work that finishes while no Task runs starts one, so its report reaches the chat.
    entry.unsubscribeNotices = session.onIdleNotice(() => {
      if (!entry.running && !this.closing && this.entries.get(key) === entry) this.startTask(entry, [], entry.lastUser);
    });
    this.entries.set(key, entry);
    return entry;
  }

  /** `typingSent`: the inbound handler already showed "typing…" for this message. */
  private startTask(entry: Entry, input: OmniMessage[], user: ChatUser, o: { typingSent?: boolean } = {}): void {
    const taskId = newTaskId();
    const abort = new AbortController();
    const running: RunningTask = { taskId, abort, requester: userRef(entry.adapter.platform, user), done: Promise.resolve() };
    entry.running = running;
    this.tasks.set(taskId, entry);
    running.done = this.runTask(entry, running, input, user, o.typingSent === true).finally(() => {
      this.tasks.delete(taskId);
      if (entry.running === running) entry.running = undefined;
      entry.lastActive = this.o.clock.now();
      const next = entry.queue.shift();
      if (next && !this.closing) this.startTask(entry, next.input, next.user);
    });
  }

  private async runTask(entry: Entry, running: RunningTask, input: OmniMessage[], user: ChatUser, typingSent: boolean): Promise<void> {
    const { adapter, thread, isDM, session } = entry;
    const platform = adapter.platform;
    const started = this.o.clock.now();
    const sconf = platform === 'telegram' || platform === 'slack' || platform === 'discord' ? this.o.config[platform].streaming : this.o.config.web.streaming;
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
      intervalMs: isDM ? sconf.dm_edit_interval_ms : sconf.group_edit_interval_ms,
      native: platform !== 'telegram' || this.o.config.telegram.draft_streaming,
      redactor: this.o.redactor,
    });
    const typing = this.startTyping(entry, sconf.typing_renew_ms, typingSent);
    const approve = this.o.broker.approverFor({
      sessionId: session.id,
      taskId: running.taskId,
      requester: running.requester,
      requesterName: user.name,
      approvers: entry.route.approvers,
      adapter,
      thread,
      mode: async () => {
        const row = await this.o.store.getSession(session.id);
        return row?.approval_mode ?? entry.route.approval_mode;
      },
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
    this.o.metrics?.taskStarted(platform);
    await this.o.store.updateSession(session.id, { status: 'running', last_active_at: started });
    const needsTitle = await this.fallbackTitle(entry, input);
    let status = 'completed';
    try {
      for await (const msg of session.run(input, { approve, signal: running.abort.signal })) {
        renderer.push(msg);
        if (msg.type !== 'session_meta' && msg.payload.type === 'abort') status = 'aborted';
        if (isPayload(msg, 'request_end') && msg.payload.status === 'auth') status = 'auth';
        await this.recordUsage(entry, msg);
      }
    } catch (err) {
      status = 'failed';
      this.o.logger.error({ err, sessionId: session.id }, 'task failed inside the gateway');
      renderer.push(b.abort('internal error in the gateway'));
    } finally {
      typing.stop();
      await renderer.finish({ interrupted: this.closing && status === 'aborted' });
      await this.o.store.updateSession(session.id, { status: 'idle', last_active_at: this.o.clock.now() }).catch(() => undefined);
      this.o.metrics?.taskFinished(platform, status, this.o.clock.now() - started);
    }
    // The model's title comes after the first reply, so it never competes with the first token.
    if (needsTitle !== undefined) void this.modelTitle(entry, needsTitle, renderer);
  }

  private async recordUsage(entry: Entry, msg: OmniMessage): Promise<void> {
    const row = usageRowFromMessage(msg, {
      project_id: entry.route.project,
      agent_id: entry.route.agent,
      session_id: entry.session.id,
      origin_session_id: msg.origin?.at(-1) ?? null,
      route: entry.route.name,
      platform: entry.adapter.platform,
      provider: entry.session.model.provider,
      model_id: entry.session.model.modelId,
    });
    if (!row) return;
    if (isPayload(msg, 'request_end')) this.o.metrics?.modelRequest(msg.payload.status);
    else this.o.metrics?.modelRequest('completed');
    await this.o.store.recordUsage(row).catch((err) => this.o.logger.warn({ err }, 'usage row not recorded'));
  }

  /** At the first Task: the first line as the title; returns the user text when a model title should follow. */
  private async fallbackTitle(entry: Entry, input: OmniMessage[]): Promise<string | undefined> {
    const row = await this.o.store.getSession(entry.session.id);
    if (!row || row.title) return undefined;
    const text = input.filter((m) => isPayload(m, 'text')).map((m) => (m.payload as { text: string }).text).join('\n');
    if (text.trim() === '') return undefined;
    await this.o.store.updateSession(entry.session.id, { title: fallbackTitle(text) });
    return text;
  }

  private async modelTitle(entry: Entry, user: string, renderer: ReplyRenderer): Promise<void> {
    const assistant = answerText(renderer.liveView);
    const generated = await entry.session.generateTitle({ user, assistant });
    const title = generated && (this.o.redactor?.redact(generated) ?? generated);
    if (title) await this.o.store.updateSession(entry.session.id, { title }).catch(() => undefined);
  }

  /**
   * "typing…" is best-effort: it draws on the shared rate budget like any call, but only when a token is
   * free now, so it never delays replies nor eats into a chat's retry_after pause.
   */
  async showTyping(adapter: ChannelAdapter, thread: ThreadRef): Promise<boolean> {
    if (!adapter.typing) return false;
    const grant = await this.o.governor.acquire(adapter.rateScopes(thread, 'typing'), { priority: 'live', maxWaitMs: 0 });
    if (!grant.granted) return false;
    await adapter.typing(thread).catch(() => undefined);
    return true;
  }

  /** Renews "typing…" every `renewMs` while a Task runs (0 = never renewed). */
  private startTyping(entry: Entry, renewMs: number, alreadySent: boolean): { stop(): void } {
    if (!entry.adapter.typing) return { stop: () => undefined };
    let timer: TimerHandle | undefined;
    let stopped = false;
    const tick = () => {
      if (stopped) return;
      void this.showTyping(entry.adapter, entry.thread);
      if (renewMs > 0) timer = this.o.clock.setTimeout(tick, renewMs);
    };
    if (!alreadySent) tick();
    else if (renewMs > 0) timer = this.o.clock.setTimeout(tick, renewMs);
    return {
      stop: () => {
        stopped = true;
        if (timer) this.o.clock.clearTimeout(timer);
      },
    };
  }

}

export type { ApprovalMode };
