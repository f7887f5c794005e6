/**
 * GatewayInbound (gateway.md §3, §6): the handler every adapter delivers to. Each platform event acts once
 * (deduplicated by its event id in SQLite); bots are ignored; DMs follow the platform's DM policy
 * (`pairing` gives unknown users a one-time code for the operator, `allowlist`, `open`, `disabled`) and
 * every message the route's access rules; chat commands are answered here; the rest goes to the session
 * manager. Button clicks are acknowledged at once, then routed (approvals, Stop, Continue).
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { decodeActionPayload } from '../../adapters/contract/action-payload';
import type { Clock } from '../../adapters/contract/clock';
import type { ActionEvent, InboundHandler, InboundMessage } from '../../adapters/contract/messages';
import { bindingKey, tryParseBindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import { resolveRoute, type GatewayConfig, type ResolvedRoute, type RouteScope } from '../config';
import type { GatewayStore } from '../store';
import type { PairingRow } from '../store/types';
import type { ApprovalBroker } from './approval-broker';
import { HELP_TEXT, parseCommand } from './commands';
import type { Outbox } from './outbox';
import type { Conversation, SessionManager } from './session-manager';

/** Pairing codes stay valid this long. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;

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
}

export function routeScopeOf(thread: ThreadRef): RouteScope {
  switch (thread.platform) {
    case 'slack':
      return { platform: 'slack', workspace: thread.team, channel: thread.channel };
    case 'discord':
      return { platform: 'discord', guild: thread.guild ?? undefined, channel: thread.channel };
    case 'telegram':
      return { platform: 'telegram', chat: thread.chat };
    case 'web':
      return { platform: 'web' };
  }
}

function channelOf(thread: ThreadRef): string {
  switch (thread.platform) {
    case 'telegram':
      return thread.chat;
    case 'web':
      return thread.conversation;
    default:
      return thread.channel;
  }
}

export class GatewayInbound {
  constructor(private readonly o: GatewayInboundOptions) {}

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
    if (!msg.isDM && !msg.mentionsBot) return;
    const route = resolveRoute(this.o.config, routeScopeOf(msg.thread));
    const conv: Conversation = { adapter, thread: msg.thread, isDM: msg.isDM, route };
    if (!(await this.admitted(conv, msg))) return;

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
    const text = row.state === 'approved' ? '✅ You are approved. Send me your message again.' : '⛔ Your pairing request was declined.';
    await this.o.outbox.post(adapter, parsed.ref, { text });
  }

  private async admitted(conv: Conversation, msg: InboundMessage): Promise<boolean> {
    const platform = conv.adapter.platform;
    const ref = `${platform}:${msg.user.id}`;
    const allowedByList = async () => this.o.config.allow_users.includes(ref) || (await this.o.store.isAllowed(platform, msg.user.id));
    if (msg.isDM) {
      const policy = platform === 'slack' || platform === 'discord' || platform === 'telegram' ? this.o.config[platform].dm_policy : 'open';
      if (policy === 'disabled') return false;
      if (policy === 'allowlist' && !(await allowedByList())) {
        await this.o.outbox.post(conv.adapter, conv.thread, { text: '⛔ This bot only answers people on its allowlist.' });
        return false;
      }
      if (policy === 'pairing' && !(await allowedByList())) {
        await this.offerPairing(conv, msg);
        return false;
      }
    }
    return this.routeAllows(conv.route, ref, msg);
  }

  private routeAllows(route: ResolvedRoute, ref: string, msg: InboundMessage): boolean {
    const { users, roles, channels } = route.access;
    if (users.length > 0 && !users.includes(ref) && !route.approvers.includes(ref)) return false;
    if (channels.length > 0 && !msg.isDM && !channels.includes(channelOf(msg.thread))) return false;
    if (roles.length > 0 && !(msg.user.roles ?? []).some((r) => roles.includes(r)) && !route.approvers.includes(ref)) return false;
    return true;
  }

  private async offerPairing(conv: Conversation, msg: InboundMessage): Promise<void> {
    const now = this.o.clock.now();
    const existing = (await this.o.store.listPairings({ state: 'pending' })).find((p) => p.platform === conv.adapter.platform && p.user_id === msg.user.id && p.expires_at > now);
    const row = existing ?? (await this.o.store.requestPairing({
      platform: conv.adapter.platform,
      user_id: msg.user.id,
      user_name: msg.user.name ?? null,
      chat: bindingKey(conv.thread),
      created_at: now,
      expires_at: now + PAIRING_TTL_MS,
    }));
    await this.o.outbox.post(conv.adapter, conv.thread, {
      text: `🔐 I don't know you yet. Ask the operator to approve your pairing code **${row.code}** (in the dashboard, or \`penguin-gateway pairing approve ${row.code}\`). It is valid for an hour.`,
    });
  }

  private async command(conv: Conversation, msg: InboundMessage, cmd: NonNullable<ReturnType<typeof parseCommand>>): Promise<void> {
    const say = (text: string) => this.o.outbox.post(conv.adapter, conv.thread, { text });
    switch (cmd.name) {
      case 'new':
        await this.o.manager.newSession(conv);
        await say('🆕 New session. What should we do?');
        return;
      case 'stop':
        if (!(await this.o.manager.stop(conv))) await say('Nothing is running.');
        return;
      case 'mode': {
        const ref = `${conv.adapter.platform}:${msg.user.id}`;
        const authorised = msg.isDM || conv.route.approvers.length === 0 || conv.route.approvers.includes(ref);
        if (!cmd.arg) {
          await say(await this.o.manager.status(conv));
          return;
        }
        await say(authorised ? await this.o.manager.setMode(conv, cmd.arg) : 'Only this route\'s approvers can change the approval mode.');
        return;
      }
      case 'status':
        await say(await this.o.manager.status(conv));
        return;
      case 'help':
      case 'start':
        await say(HELP_TEXT);
        return;
    }
  }
}
