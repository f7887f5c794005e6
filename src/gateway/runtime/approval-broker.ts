/**
 * ApprovalBroker (gateway.md §5): the engine's `approve` for chat sessions. The route's approval mode and
 * the session's "Allow for this session" grants decide first; otherwise the call becomes a pending row in
 * SQLite and a card with Allow / Deny / Allow for this session. The first valid decision wins (a click by
 * the requester or an approver, the admin API, the timeout, or Stop); the card is then edited to show it.
 * A grant covers only the Tasks of the user whose Task asked, and never a call that reaches outside the
 * workspace (those always ask). Cards of Tasks that died with the process are expired at startup.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { approvalCardMarkdown, buildApprovalCard, buttonsFor, type ApprovalCard, type CardState } from '../../adapters/contract/approval-card';
import type { ApprovalVerb } from '../../adapters/contract/action-payload';
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { MessageRef } from '../../adapters/contract/messages';
import { bindingKey, tryParseBindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import type { ApproveFn, ToolCallMessage, ToolPermission, ToolReach } from '../../core/interfaces';
import type { ApprovalDecision } from '../../core/omnimessage/types';
import { decideApproval, type ApprovalMode } from '../../core/state';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../admin/metrics';
import type { GatewayStore } from '../store';
import type { ApprovalRow } from '../store/types';
import type { Outbox } from './outbox';

/** Everything the broker needs to ask about one Task's tool calls. */
export interface TaskApprovalContext {
  sessionId: string;
  taskId: string;
  /** `platform:user_id` of the user who started the Task. */
  requester: string;
  requesterName?: string;
  /** Route approvers (`platform:user_id`) who may decide too. */
  approvers: readonly string[];
  adapter: ChannelAdapter;
  thread: ThreadRef;
  /** Read on every decision: `/mode` applies to the next tool call. */
  mode: () => Promise<ApprovalMode>;
  permissionOf: (toolName: string) => ToolPermission | undefined;
  /** Where a call's paths lie: `outside` always asks, whatever the mode or the grants. */
  reachOf: (call: ToolCallMessage) => Promise<ToolReach>;
  /** The session's "Allow for this session" grants (shared by its Tasks, scoped per requester). */
  sessionGrants: SessionGrants;
  /** The live reply hears about pending/resolved approvals and is flushed before a card is posted. */
  onPending?: (toolCallId: string, origin?: string[]) => Promise<void> | void;
  onResolved?: (toolCallId: string, origin?: string[]) => void;
  /** Aborting the Task denies what is still pending. */
  signal: AbortSignal;
  /** The schedule whose unattended run asks (named on the card). */
  schedule?: string;
  /** Anyone who can press the card may decide (a scheduled run in a direct conversation: only its user can). */
  anyoneMayDecide?: boolean;
}

/** "Allow `<tool>` for this session", per (user, tool): a grant never covers another user's Tasks. */
export class SessionGrants {
  private readonly granted = new Set<string>();

  add(user: string, tool: string): void {
    this.granted.add(`${user}\u0000${tool}`);
  }

  covers(user: string, tool: string): boolean {
    return this.granted.has(`${user}\u0000${tool}`);
  }
}

export type DecideOutcome =
  | { ok: true; state: 'allowed' | 'denied' }
  | { ok: false; code: 'not_found' | 'already_decided' | 'expired' | 'not_allowed'; message: string };

interface Pending {
  row: ApprovalRow;
  card: ApprovalCard;
  ctx: TaskApprovalContext;
  cardRef?: MessageRef;
  timer?: TimerHandle;
  resolve: (d: ApprovalDecision) => void;
  toolCall: ToolCallMessage;
  /** Set once decided, so a card that arrives late still shows the outcome. */
  decidedState?: CardState;
}

export interface ApprovalBrokerOptions {
  store: GatewayStore;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  metrics?: GatewayMetrics;
  timeoutMs: number;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly o: ApprovalBrokerOptions) {}

  /** The approve callback for one Task. */
  approverFor(ctx: TaskApprovalContext): ApproveFn {
    const ask: ApproveFn = (call) => this.ask(ctx, call);
    return async (call) => {
      const reach = await ctx.reachOf(call);
      if (reach !== 'outside' && ctx.sessionGrants.covers(ctx.requester, call.payload.name)) return 'allow';
      return decideApproval(await ctx.mode(), ctx.permissionOf(call.payload.name), call, ask, undefined, reach);
    };
  }

  /** Who may decide an approval: the requester and the route's approvers (anyone, for a scheduled run in a direct conversation). */
  mayDecide(id: string, actor: string): boolean | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    return p.ctx.anyoneMayDecide === true || actor === p.ctx.requester || p.ctx.approvers.includes(actor);
  }

  /** Apply a decision from a button (`actor` already authorised) or the admin API. Idempotent. */
  async decide(id: string, verb: ApprovalVerb | 'deny', actor: string, via: 'chat' | 'admin', actorName?: string): Promise<DecideOutcome> {
    const allow = verb === 'allow' || verb === 'session';
    const result = await this.o.store.decideApproval(id, allow ? 'allowed' : 'denied', actor, this.o.clock.now());
    if (!result) return { ok: false, code: 'not_found', message: `no approval ${id}` };
    if (!result.changed) {
      const state = result.row.state;
      return state === 'expired' || state === 'cancelled'
        ? { ok: false, code: 'expired', message: `approval ${id} is ${state}` }
        : { ok: false, code: 'already_decided', message: `approval ${id} was already ${state}` };
    }
    this.o.metrics?.approvalDecided(allow ? 'allow' : 'deny', via);
    const p = this.pending.get(id);
    if (p) {
      // The grant is for the user whose Task asked (an approver may give it on their behalf).
      if (verb === 'session') p.ctx.sessionGrants.add(p.ctx.requester, p.row.tool_name);
      await this.settle(p, allow ? 'allow' : 'deny', { state: 'decided', verb, by: actorName ?? actor });
    }
    return { ok: true, state: allow ? 'allowed' : 'denied' };
  }

  /** Deny everything still pending for a Task (Stop, shutdown): pending approvals are answered before the abort. */
  async cancelTask(taskId: string, reason: string): Promise<void> {
    const mine = [...this.pending.values()].filter((p) => p.ctx.taskId === taskId);
    await Promise.all(mine.map(async (p) => {
      const r = await this.o.store.decideApproval(p.row.id, 'cancelled', null, this.o.clock.now());
      if (r?.changed) await this.settle(p, 'deny', { state: 'expired', reason });
    }));
  }

  /**
   * At startup: approvals whose Task died with the previous process are expired and their cards say so;
   * with `keys`, only those of these conversations (a dead peer instance's, taken over).
   */
  async expireOrphans(adapterFor: (platform: string) => ChannelAdapter | undefined, keys?: ReadonlySet<string>): Promise<ApprovalRow[]> {
    const rows = keys ? await this.closeWithin(keys) : await this.o.store.closePendingApprovals('expired', undefined, null);
    for (const row of rows) {
      if (!row.card) continue;
      const adapter = adapterFor(row.card.platform);
      const parsed = tryParseBindingKey(row.card.chat);
      if (!adapter || !parsed.ok) continue;
      const card = buildApprovalCard({ approvalId: row.id, toolName: row.tool_name, arguments: '{}' });
      await this.o.outbox.edit(adapter, { thread: parsed.ref, messageId: row.card.message_id }, {
        text: approvalCardMarkdown(card, { state: 'expired', reason: 'gateway restarted' }),
        buttons: [],
        card: { card, state: { state: 'expired', reason: 'gateway restarted' } },
      });
    }
    return rows;
  }

  private async closeWithin(keys: ReadonlySet<string>): Promise<ApprovalRow[]> {
    const out: ApprovalRow[] = [];
    for (const row of await this.o.store.listApprovals({ state: 'pending', limit: 10_000 })) {
      const chat = row.card?.chat ?? (await this.o.store.getSession(row.session_id))?.binding_key;
      if (chat === undefined || chat === null || !keys.has(chat)) continue;
      const r = await this.o.store.decideApproval(row.id, 'expired', null, this.o.clock.now());
      if (r?.changed) out.push(row);
    }
    return out;
  }

  /** Stop timers (process shutdown); pending callers are denied. */
  async close(): Promise<void> {
    for (const p of [...this.pending.values()]) {
      const r = await this.o.store.decideApproval(p.row.id, 'cancelled', null, this.o.clock.now()).catch(() => undefined);
      if (r?.changed) await this.settle(p, 'deny', { state: 'expired', reason: 'gateway shutting down' });
    }
  }

  private async ask(ctx: TaskApprovalContext, call: ToolCallMessage): Promise<ApprovalDecision> {
    if (ctx.signal.aborted) return 'deny';
    const now = this.o.clock.now();
    const row = await this.o.store.createApproval({
      session_id: ctx.sessionId,
      origin_session_id: call.origin?.at(-1) ?? null,
      tool_call_id: call.payload.tool_call_id,
      tool_name: call.payload.name,
      requester: ctx.requester,
      task_id: ctx.taskId,
      created_at: now,
      expires_at: now + this.o.timeoutMs,
    });
    const card = buildApprovalCard({ approvalId: row.id, toolName: call.payload.name, arguments: call.payload.arguments, origin: call.origin, ...(ctx.schedule ? { schedule: ctx.schedule } : {}), ...(ctx.anyoneMayDecide ? { anyoneMayDecide: true } : {}) });
    return new Promise<ApprovalDecision>((resolve) => {
      const p: Pending = { row, card, ctx, resolve, toolCall: call };
      this.pending.set(row.id, p);
      p.timer = this.o.clock.setTimeout(() => void this.expire(p), this.o.timeoutMs);
      const onAbort = () => void this.cancelTask(ctx.taskId, 'stopped');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      void (async () => {
        await ctx.onPending?.(call.payload.tool_call_id, call.origin);
        const ref = await this.o.outbox.post(ctx.adapter, ctx.thread, { text: approvalCardMarkdown(card), buttons: buttonsFor(card), card: { card, state: { state: 'pending' } } });
        if (!ref) return;
        p.cardRef = ref;
        await this.o.store.setApprovalCard(row.id, { platform: ctx.adapter.platform, chat: bindingKey(ctx.thread), message_id: ref.messageId });
        await this.o.store.createDelivery({ platform: ctx.adapter.platform, chat: bindingKey(ctx.thread), purpose: 'card', session_id: ctx.sessionId, task_id: ctx.taskId, platform_message_id: ref.messageId, state: 'sent' });
        // Decided while the card was on its way: show the outcome now.
        if (!this.pending.has(row.id) && p.decidedState) await this.showDecision(p, p.decidedState);
      })().catch((err) => this.o.logger.warn({ err, approval: row.id }, 'approval card not posted'));
      const original = p.resolve;
      p.resolve = (d) => {
        ctx.signal.removeEventListener('abort', onAbort);
        original(d);
      };
    });
  }

  private async expire(p: Pending): Promise<void> {
    const r = await this.o.store.decideApproval(p.row.id, 'expired', null, this.o.clock.now());
    if (r?.changed) {
      this.o.metrics?.approvalDecided('expired', 'timeout');
      await this.settle(p, 'deny', { state: 'expired' });
    }
  }

  private async settle(p: Pending, decision: ApprovalDecision, state: CardState): Promise<void> {
    if (!this.pending.delete(p.row.id)) return;
    if (p.timer) this.o.clock.clearTimeout(p.timer);
    p.decidedState = state;
    p.resolve(decision);
    p.ctx.onResolved?.(p.toolCall.payload.tool_call_id, p.toolCall.origin);
    if (p.cardRef) await this.showDecision(p, state);
  }

  private async showDecision(p: Pending, state: CardState): Promise<void> {
    if (!p.cardRef) return;
    await this.o.outbox.edit(p.ctx.adapter, p.cardRef, { text: approvalCardMarkdown(p.card, state), buttons: buttonsFor(p.card, state), card: { card: p.card, state } });
  }
}
