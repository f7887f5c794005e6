/**
 * GatewayInbound (gateway.md §3, §6): the handler every adapter delivers to. Each platform event acts once
 * (deduplicated by its event id in SQLite); bots are ignored; the AccessGate admits by DM / group policy
 * and route access; chat commands are answered here (only an approver may make approvals laxer, and only
 * the Task's starter or an approver may stop it); the rest goes to the session manager. Button clicks are
 * acknowledged at once, then routed (approvals, Stop, Continue).
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { decodeActionPayload } from '../../adapters/contract/action-payload';
import type { Clock } from '../../adapters/contract/clock';
import type { ActionEvent, InboundHandler, InboundMessage } from '../../adapters/contract/messages';
import { bindingKey, tryParseBindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import { resolveRoute, type GatewayConfig, type ResolvedRoute } from '../config';
import type { GatewayStore } from '../store';
import type { PairingRow } from '../store/types';
import { AccessGate } from './access-gate';
import type { ApprovalBroker } from './approval-broker';
import { HELP_TEXT, parseCommand } from './commands';
import type { Outbox } from './outbox';
import type { Conversation, SessionManager } from './session-manager';

const NOT_YOUR_TASK = 'A task someone else started is running here; only they or an approver can stop it or start a new session now.';

export interface GatewayInboundOptions {
  config: GatewayConfig;
  store: GatewayStore;
  manager: SessionManager;
  broker: ApprovalBroker;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  metrics?: GatewayMetrics;
  /** Adapters by platform, to answer pairing decisions made elsewhere. */
  adapterFor: (platform: string) => ChannelAdapter | undefined;
  /** Called for every accepted inbound event (health: last inbound per adapter). */
  onInbound?: (platform: string, at: number) => void;
  /** The `/schedules` answer for a conversation (the scheduler's listing of its route's agent). */
  schedules?: (conv: Conversation) => string;
}

/** The route of a conversation, from the scope its adapter reports. */
export function routeOf(config: Pick<GatewayConfig, 'routes' | 'default_route'>, adapter: ChannelAdapter, thread: ThreadRef): ResolvedRoute {
  return resolveRoute(config, { platform: adapter.platform, ...adapter.place(thread).scope });
}

export class GatewayInbound {
  private readonly gate: AccessGate;

  constructor(private readonly o: GatewayInboundOptions) {
    this.gate = new AccessGate({ config: o.config, store: o.store, outbox: o.outbox, clock: o.clock });
  }

  handlerFor(adapter: ChannelAdapter): InboundHandler {
    return {
      onMessage: (m) => this.onMessage(adapter, m),
      onAction: (a) => this.onAction(adapter, a),
    };
  }

  async onMessage(adapter: ChannelAdapter, msg: InboundMessage): Promise<void> {
    const received = this.o.clock.now();
    const platform = adapter.platform;
    this.o.metrics?.inbound(platform, 'message');
    if (msg.user.isBot) return;
    if (!(await this.o.store.recordInbound(platform, msg.eventId, received))) return;
    this.o.onInbound?.(platform, received);
    if (!msg.isDM && !msg.mentionsBot && !(msg.followUp && (await this.o.store.resolveBinding(bindingKey(msg.thread))))) return;
    const route = routeOf(this.o.config, adapter, msg.thread);
    const conv: Conversation = { adapter, thread: msg.thread, isDM: msg.isDM, route };
    if (!(await this.gate.admit(adapter, route, msg))) return;

    const command = parseCommand(msg.text);
    if (command) {
      await this.command(conv, msg, command);
      return;
    }
    // The first outbound call: show we are on it before anything slow (session resume, downloads).
    void this.o.manager.showTyping(adapter, msg.thread).then((shown) => {
      if (shown) this.o.metrics?.firstOutbound(platform, this.o.clock.now() - received);
    });
    await this.o.manager.handleMessage(conv, msg);
  }

  async onAction(adapter: ChannelAdapter, action: ActionEvent): Promise<void> {
    const platform = adapter.platform;
    this.o.metrics?.inbound(platform, 'action');
    if (!(await this.o.store.recordInbound(platform, `action:${action.eventId}`))) {
      await action.answer();
      return;
    }
    this.o.onInbound?.(platform, this.o.clock.now());
    const decoded = decodeActionPayload(action.payload);
    const actor = `${platform}:${action.user.id}`;
    if (!decoded.ok) {
      await action.answer({ text: 'This button is no longer valid.' });
      return;
    }
    const a = decoded.action;
    if (a.kind === 'approval') {
      const may = this.o.broker.mayDecide(a.approvalId, actor);
      if (may === false) {
        await action.answer({ text: 'This approval is not yours to decide.', alert: true });
        return;
      }
      await action.answer();
      const r = await this.o.broker.decide(a.approvalId, a.verb, actor, 'chat', action.user.name ?? actor);
      if (!r.ok && r.code !== 'already_decided') this.o.logger.info({ approval: a.approvalId, code: r.code }, 'approval click had no effect');
      return;
    }
    if (a.kind === 'stop') {
      const r = await this.o.manager.stopTask(a.taskId, actor);
      await action.answer(r === 'not_allowed' ? { text: 'Only the person who started this task can stop it.', alert: true } : r === 'not_running' ? { text: 'That task has already finished.' } : undefined);
      return;
    }
    await action.answer();
    const r = await this.o.manager.continueTask(a.continuationId, action.user);
    if (r === 'unknown') await this.o.outbox.post(adapter, action.thread, { text: 'That Continue button has expired; just send your next message.' });
    if (r === 'busy') await this.o.outbox.post(adapter, action.thread, { text: 'A task is already running here.' });
  }

  /** The operator decided a pairing request (CLI or admin API): tell the user. */
  async pairingDecided(row: PairingRow): Promise<void> {
    const adapter = this.o.adapterFor(row.platform);
    if (!adapter || !row.chat) return;
    const parsed = tryParseBindingKey(row.chat);
    if (!parsed.ok) return;
    const text = row.kind === 'group'
      ? (row.state === 'approved' ? '✅ This group is approved. Mention me again to get started.' : '⛔ The pairing request for this group was declined.')
      : (row.state === 'approved' ? '✅ You are approved. Send me your message again.' : '⛔ Your pairing request was declined.');
    await this.o.outbox.post(adapter, parsed.ref, { text });
  }

  private async command(conv: Conversation, msg: InboundMessage, cmd: NonNullable<ReturnType<typeof parseCommand>>): Promise<void> {
    const say = (text: string) => this.o.outbox.post(conv.adapter, conv.thread, { text });
    const actor = `${conv.adapter.platform}:${msg.user.id}`;
    switch (cmd.name) {
      case 'new': {
        const r = await this.o.manager.newSession(conv, actor);
        await say(r === 'not_allowed' ? NOT_YOUR_TASK : '🆕 New session. What should we do?');
        return;
      }
      case 'stop': {
        const r = await this.o.manager.stop(conv, actor);
        if (r === 'not_running') await say('Nothing is running.');
        if (r === 'not_allowed') await say(NOT_YOUR_TASK);
        return;
      }
      case 'mode': {
        if (!cmd.arg) {
          await say(await this.o.manager.status(conv));
          return;
        }
        await say(await this.o.manager.setMode(conv, cmd.arg, { mayWiden: conv.route.approvers.includes(actor) }));
        return;
      }
      case 'status':
        await say(await this.o.manager.status(conv));
        return;
      case 'schedules':
        await say(this.o.schedules?.(conv) ?? 'The scheduler is not running in this gateway.');
        return;
      case 'help':
      case 'start':
        await say(HELP_TEXT);
        return;
    }
  }
}
