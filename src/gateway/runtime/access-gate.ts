/**
 * AccessGate (gateway.md §6): who may talk to the bot. A DM follows the platform's DM policy for its user;
 * a group message follows the platform's group policy for the group its adapter names (Telegram chat,
 * Discord guild, Slack workspace) — `pairing` answers an unknown subject with a one-time code the operator approves, `allowlist`
 * answers "not enabled here", `open` admits, `disabled` stays silent — and then the route's access rules.
 * Every refusal is said at most once per code lifetime per subject, so a flood gets one reply.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock } from '../../adapters/contract/clock';
import type { InboundMessage } from '../../adapters/contract/messages';
import { bindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import { scopeIdOf, type GatewayConfig, type ResolvedRoute } from '../config';
import type { DmPolicy } from '../config/schema';
import type { GatewayStore } from '../store';
import type { AccessKind } from '../store/types';
import type { Outbox } from './outbox';

/** Pairing codes stay valid this long; refusals are repeated at most this often. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;

interface Subject {
  kind: AccessKind;
  id: string;
  /** For the operator's list: the user's name, or who asked in the group. */
  name?: string;
}

export interface AccessGateOptions {
  config: GatewayConfig;
  store: GatewayStore;
  outbox: Outbox;
  clock: Clock;
}

export class AccessGate {
  /** `platform kind id` → when a refusal was last said. */
  private readonly refusedAt = new Map<string, number>();

  constructor(private readonly o: AccessGateOptions) {}

  /** Whether `msg` may go on to the agent; refusals are answered here. */
  async admit(adapter: ChannelAdapter, route: ResolvedRoute, msg: InboundMessage): Promise<boolean> {
    const platform = adapter.platform;
    const ref = `${platform}:${msg.user.id}`;
    const place = adapter.place(msg.thread);
    const { dm_policy, group_policy } = this.o.config[platform];
    const ok = msg.isDM
      ? await this.passes(adapter, msg.thread, dm_policy, { kind: 'user', id: msg.user.id, name: msg.user.name }, ref, route)
      : place.group === undefined || await this.passes(adapter, msg.thread, group_policy, { kind: 'group', id: place.group, name: msg.user.name ? `asked by ${msg.user.name}` : undefined }, ref, route);
    return ok && this.routeAllows(route, ref, msg, place.channel);
  }

  private async passes(adapter: ChannelAdapter, thread: ThreadRef, policy: DmPolicy, subject: Subject, ref: string, route: ResolvedRoute): Promise<boolean> {
    if (policy === 'open') return true;
    if (policy === 'disabled') return false;
    if (await this.known(adapter.platform, subject, ref, route)) return true;
    if (policy === 'allowlist') {
      if (this.shouldSay(adapter.platform, subject)) {
        const text = subject.kind === 'group' ? '⛔ This bot is not enabled for this group.' : '⛔ This bot only answers people on its allowlist.';
        await this.o.outbox.post(adapter, thread, { text });
      }
      return false;
    }
    await this.offerPairing(adapter, thread, subject);
    return false;
  }

  /** Allowlisted (env, config or an approved pairing), a route approver, or a group the config routes by name. */
  private async known(platform: ChannelAdapter['platform'], subject: Subject, ref: string, route: ResolvedRoute): Promise<boolean> {
    // An approver is named by the operator: trusted in a DM and wherever they bring the bot.
    if (route.approvers.includes(ref)) return true;
    if (subject.kind === 'user') return this.o.config.allow_users.includes(ref) || this.o.store.isAllowed(platform, subject.id);
    const listed = this.o.config.routes.some((r) => r.match?.platform === platform && r.match && scopeIdOf(r.match) === subject.id);
    return listed || this.o.store.isAllowed(platform, subject.id, 'group');
  }

  private shouldSay(platform: string, subject: Subject): boolean {
    const key = `${platform} ${subject.kind} ${subject.id}`;
    const now = this.o.clock.now();
    const last = this.refusedAt.get(key);
    if (last !== undefined && now - last < PAIRING_TTL_MS) return false;
    this.refusedAt.set(key, now);
    return true;
  }

  private async offerPairing(adapter: ChannelAdapter, thread: ThreadRef, subject: Subject): Promise<void> {
    const now = this.o.clock.now();
    const { row, created } = await this.o.store.requestPairing({
      platform: adapter.platform,
      kind: subject.kind,
      user_id: subject.id,
      user_name: subject.name ?? null,
      chat: bindingKey(thread),
      created_at: now,
      expires_at: now + PAIRING_TTL_MS,
    });
    // One reply per code: the same subject writing again while the code is valid hears nothing new.
    if (!created) return;
    const who = subject.kind === 'group' ? "This group isn't approved yet." : "I don't know you yet.";
    await this.o.outbox.post(adapter, thread, {
      text: `🔐 ${who} Ask the operator to approve pairing code **${row.code}** (\`penguin-gateway pairing approve ${row.code}\`). It is valid for an hour.`,
    });
  }

  private routeAllows(route: ResolvedRoute, ref: string, msg: InboundMessage, channel: string): boolean {
    const { users, roles, channels } = route.access;
    if (users.length > 0 && !users.includes(ref) && !route.approvers.includes(ref)) return false;
    if (channels.length > 0 && !msg.isDM && !channels.includes(channel)) return false;
    if (roles.length > 0 && !(msg.user.roles ?? []).some((r) => roles.includes(r)) && !route.approvers.includes(ref)) return false;
    return true;
  }
}
