/**
 * ChatExecutor: a schedule fire as a chat Task. It finds the delivery conversation (a Telegram chat or
 * topic, a playground conversation, a new thread the platform opens in a Slack/Discord channel, or the
 * conversation a bound session is on), checks its route runs the schedule's agent, and has the session
 * manager run the `[scheduled_task]` input (sender "server") there with the run's approval mode and
 * max_duration, through the same live reply, writer and rate governor as chat. Never throws.
 */
import { realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { formatDeliveryTarget, targetThread } from '../../adapters/contract/delivery-target';
import { bindingKey, tryParseBindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import * as b from '../../core/omnimessage/builders';
import { formatScheduledTask, type ApprovalMode } from '../../core/state';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import { routeOf } from '../runtime/inbound';
import type { Conversation } from '../runtime/conversation';
import type { Outbox } from '../runtime/outbox';
import type { ScheduledJob, ScheduledResult } from '../runtime/session-manager';
import type { GatewayStore } from '../store';
import type { ScheduleEntry } from './catalog';
import type { FireExecutor, FireOutcome, FireRequest, ValidEntry } from './fire-runs';

export const DEFAULT_MAX_DURATION_MS = 3_600_000;
const DEFAULT_MAX_DURATION = '1h';

export interface ChatExecutorOptions {
  config: Pick<GatewayConfig, 'routes' | 'default_route'>;
  store: GatewayStore;
  manager: { runScheduled(conv: Conversation, job: ScheduledJob): Promise<ScheduledResult> };
  outbox: Outbox;
  logger: Logger;
  adapterFor(platform: string): ChannelAdapter | undefined;
  /** Why a platform has no running adapter here (disabled, no credentials, failed to start). */
  whyAbsent(platform: string): string;
  /**
   * Several instances on one database: the live instance that owns the conversation, when not this one
   * (undefined: this one, now its owner), and how a fire is handed to it (it runs there, the outcome comes back).
   */
  ownerElsewhere?(key: string): Promise<string | undefined>;
  handOver?(owner: string, runId: number, waitMs: number): Promise<FireOutcome>;
}

/** How long past its max_duration a run handed to another instance is waited for. */
const HAND_OVER_SLACK_MS = 120_000;

type Where = { conv: Conversation; boundMode?: ApprovalMode } | { error: string };

async function inside(path: string, base: string): Promise<boolean> {
  try {
    const [p, b2] = await Promise.all([realpath(path), realpath(base)]);
    return p === b2 || p.startsWith(b2.endsWith(sep) ? b2 : b2 + sep);
  } catch {
    return false;
  }
}

export class ChatExecutor implements FireExecutor {
  constructor(private readonly o: ChatExecutorOptions) {}

  deliveryProblem(entry: ScheduleEntry): string | undefined {
    const t = entry.target;
    if (!t) return undefined;
    const adapter = this.o.adapterFor(t.platform);
    if (!adapter) return `deliver_to ${formatDeliveryTarget(t)}: ${this.o.whyAbsent(t.platform)}`;
    if (!targetThread(t) && !adapter.startConversation) return `deliver_to ${formatDeliveryTarget(t)}: the ${t.platform} adapter of this gateway cannot start conversations in a channel`;
    const known = adapter.deliveryProblem?.(t);
    return known === undefined ? undefined : `deliver_to ${formatDeliveryTarget(t)}: ${known}`;
  }

  async fire(req: FireRequest): Promise<FireOutcome> {
    const { entry, run } = req;
    const def = entry.def;
    const where = await this.conversationFor(entry);
    if ('error' in where) return { status: 'failed', error: where.error };
    const { conv } = where;
    const owner = req.handedOver ? undefined : await this.o.ownerElsewhere?.(bindingKey(conv.thread));
    if (owner !== undefined && this.o.handOver) {
      this.o.logger.info({ schedule: entry.id, run: run.id, owner }, 'scheduled run handed to the instance that owns its conversation');
      return this.o.handOver(owner, run.id, (def.maxDurationMs ?? DEFAULT_MAX_DURATION_MS) + HAND_OVER_SLACK_MS);
    }
    if (def.workspace !== undefined && !(conv.route.workspace_path !== undefined && (await inside(def.workspace, conv.route.workspace_path)))) {
      return this.refuse(conv, def.name, `workspace ${def.workspace} is not an existing directory inside route "${conv.route.name}"'s workspace_path`);
    }
    const approval = req.approval(conv.route, where.boundMode);
    const result = await this.o.manager.runScheduled(conv, {
      schedule: { name: def.name, id: entry.id, mode: approval.effective },
      input: [b.userText(formatScheduledTask({ schedule: def.name, firedAt: new Date(run.slot).toISOString(), prompt: def.prompt }), 'server')],
      open: def.sessionId !== undefined
        ? { kind: 'session', sessionId: def.sessionId }
        : {
            kind: 'fresh',
            title: `⏰ ${def.name}`.slice(0, 30),
            ...(def.workspace !== undefined ? { workspace: resolve(def.workspace) } : {}),
            ...(def.provider !== undefined && def.modelId !== undefined ? { model: { provider: def.provider, modelId: def.modelId } } : {}),
          },
      maxDurationMs: def.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
      maxDurationReason: `the scheduled run took longer than its max_duration (${def.maxDuration ?? DEFAULT_MAX_DURATION})`,
      onStarted: req.started,
    });
    if (!result.ok) return result.shuttingDown ? { status: 'failed', error: result.error } : this.refuse(conv, def.name, result.error);
    const o = result.outcome;
    if (o.status === 'completed') return o.deliveryError === undefined ? { status: 'completed' } : { status: 'failed', error: `the reply could not be delivered: ${o.deliveryError}` };
    if (o.status === 'auth') return { status: 'failed', error: 'the model endpoint rejected the credentials' };
    return { status: 'failed', error: o.reason ?? (o.status === 'aborted' ? 'aborted' : 'internal error in the gateway') };
  }

  /** Tells the delivery conversation why the run did not happen (nobody asked for it, so nobody would know). */
  private async refuse(conv: Conversation, name: string, error: string): Promise<FireOutcome> {
    await this.o.outbox.post(conv.adapter, conv.thread, { text: `⚠️ The scheduled run \`${name}\` could not start: ${error}` });
    return { status: 'failed', error };
  }

  private async conversationFor(entry: ValidEntry): Promise<Where> {
    const def = entry.def;
    let adapter: ChannelAdapter | undefined;
    let thread: ThreadRef | undefined;
    let boundMode: ApprovalMode | undefined;
    if (def.sessionId !== undefined) {
      const row = await this.o.store.getSession(def.sessionId);
      if (!row) return { error: `session_id ${def.sessionId}: no such session in this gateway` };
      if (row.project_id !== entry.ref.project_id || row.agent_id !== entry.ref.agent_id) return { error: `session_id ${def.sessionId}: the session belongs to ${row.project_id}/${row.agent_id}, not this schedule's agent` };
      boundMode = row.approval_mode;
      if (!entry.target) {
        if (!row.binding_key) return { error: `session_id ${def.sessionId}: the session is on no conversation now; give the schedule a deliver_to` };
        const parsed = tryParseBindingKey(row.binding_key);
        if (!parsed.ok) return { error: `session_id ${def.sessionId}: ${parsed.error}` };
        thread = parsed.ref;
        adapter = this.o.adapterFor(thread.platform);
        if (!adapter) return { error: `session_id ${def.sessionId} is on a ${thread.platform} conversation: ${this.o.whyAbsent(thread.platform)}` };
      }
    }
    if (entry.target) {
      const t = entry.target;
      adapter = this.o.adapterFor(t.platform);
      if (!adapter) return { error: `deliver_to ${formatDeliveryTarget(t)}: ${this.o.whyAbsent(t.platform)}` };
      thread = targetThread(t);
      if (!thread) {
        const opened = await this.o.outbox.startConversation(adapter, t, { text: `⏰ **${def.name}**` });
        if ('error' in opened) return { error: `deliver_to ${formatDeliveryTarget(t)}: ${opened.error}` };
        thread = opened.ref.thread;
      }
    }
    const route = routeOf(this.o.config, adapter!, thread!);
    if (route.project !== entry.ref.project_id || route.agent !== entry.ref.agent_id) {
      return { error: `the conversation is routed to ${route.project}/${route.agent} (route "${route.name}"), not to this schedule's agent` };
    }
    const conv: Conversation = { adapter: adapter!, thread: thread!, isDM: adapter!.place(thread!).direct, route };
    return boundMode !== undefined ? { conv, boundMode } : { conv };
  }
}
