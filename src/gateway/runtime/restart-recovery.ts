/**
 * What a start (or the takeover of a dead peer instance, for its conversations only) does about the
 * process before it (gateway.md §5, §7, §12): sessions it left busy are idle again;
 * approval cards of Tasks that died are edited to "expired"; every reply it left mid-stream is finalised in
 * place — each part edited to the text it last showed (from the delivery ledger), the Stop button gone, a
 * note on the last part — and its conversation is offered a Continue button (worded for a reply that never
 * got past a draft, too). Platform calls go through the outbox, after the adapters have started.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { tryParseBindingKey } from '../../adapters/contract/thread-ref';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { GatewayStore } from '../store';
import type { DeliveryRow } from '../store/types';
import type { ApprovalBroker } from './approval-broker';
import { routeOf } from './inbound';
import type { Outbox } from './outbox';
import type { SessionManager } from './session-manager';

export const INTERRUPTED_NOTE = '⚠️ interrupted: the gateway restarted';
export const TAKEOVER_NOTE = '⚠️ interrupted: the gateway instance answering here stopped';

/** Which conversations to recover (by binding key), the note their cut-off replies get and what the Continue offer blames; absent: all of them. */
export interface RecoveryScope {
  keys: ReadonlySet<string>;
  note: string;
  cause?: string;
}

export const TAKEOVER_CAUSE = 'The gateway instance answering here stopped';

export interface RecoveryDeps {
  config: GatewayConfig;
  store: GatewayStore;
  broker: ApprovalBroker;
  manager: SessionManager;
  outbox: Outbox;
  logger: Logger;
  adapterFor: (platform: string) => ChannelAdapter | undefined;
}

/** Reply parts of one Task, oldest first (rows without a Task id stand alone). */
function byTask(rows: DeliveryRow[]): DeliveryRow[][] {
  const groups = new Map<string, DeliveryRow[]>();
  for (const r of rows) {
    const key = r.task_id ?? `row:${r.id}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a.id - b.id));
}

export async function recoverInterruptedReplies(d: RecoveryDeps, scope?: RecoveryScope): Promise<void> {
  await d.broker.expireOrphans(d.adapterFor, scope?.keys);
  const offered = new Set<string>();
  const open = await d.store.listOpenDeliveries({ purpose: 'live' });
  for (const parts of byTask(scope ? open.filter((r) => scope.keys.has(r.chat)) : open)) {
    for (const p of parts) await d.store.setDeliveryState(p.id, 'interrupted');
    const { platform, chat } = parts[0];
    const adapter = d.adapterFor(platform);
    const parsed = tryParseBindingKey(chat);
    if (!adapter || !parsed.ok) continue;
    const shown = parts.filter((p) => p.platform_message_id !== null && p.shown !== null);
    for (const [i, p] of shown.entries()) {
      const text = i === shown.length - 1 ? `${p.shown}\n\n_${scope?.note ?? INTERRUPTED_NOTE}_` : p.shown!;
      await d.outbox.edit(adapter, { thread: parsed.ref, messageId: p.platform_message_id! }, { text, buttons: [] }, { repostIfGone: false });
    }
    if (offered.has(chat)) continue;
    offered.add(chat);
    const conv = { adapter, thread: parsed.ref, isDM: adapter.place(parsed.ref).direct, route: routeOf(d.config, adapter, parsed.ref) };
    await d.manager.offerContinue(conv, { replyShown: shown.length > 0, ...(scope?.cause ? { cause: scope.cause } : {}) });
  }
}
