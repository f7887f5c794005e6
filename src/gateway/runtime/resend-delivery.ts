/**
 * Resending a dead letter from the dashboard: a delivery the platform refused for good (`failed`) is posted
 * again with the text it was to show, into its thread (a delivery's `chat` is the thread's binding key).
 * A success is one more attempt of the same delivery, so the row becomes `sent` with the new message id.
 * What cannot be resent says why: unknown row, not failed, nothing recorded to show, no conversation, the
 * platform's adapter not running, or the platform refusing again.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { tryParseBindingKey } from '../../adapters/contract/thread-ref';
import type { DeliveryRow, GatewayStore } from '../store';
import type { Outbox } from './outbox';

export type ResendResult =
  | { ok: true; delivery: DeliveryRow }
  | { ok: false; code: 'not_found' | 'not_failed' | 'nothing_to_send' | 'no_conversation' | 'platform_not_running' | 'send_failed'; message: string };

export async function resendDelivery(
  id: number,
  o: { store: GatewayStore; outbox: Outbox; adapterFor: (platform: string) => ChannelAdapter | undefined },
): Promise<ResendResult> {
  const row = await o.store.getDelivery(id);
  if (!row) return { ok: false, code: 'not_found', message: `no delivery ${id}` };
  if (row.state !== 'failed') return { ok: false, code: 'not_failed', message: `delivery ${id} is ${row.state}, not a dead letter` };
  if (!row.shown) return { ok: false, code: 'nothing_to_send', message: `delivery ${id} recorded no text to send again` };
  const parsed = tryParseBindingKey(row.chat);
  if (!parsed.ok) return { ok: false, code: 'no_conversation', message: `delivery ${id} belongs to no conversation the gateway can post to` };
  const adapter = o.adapterFor(parsed.ref.platform);
  if (!adapter) return { ok: false, code: 'platform_not_running', message: `the ${parsed.ref.platform} adapter is not running` };
  const ref = await o.outbox.post(adapter, parsed.ref, { text: row.shown });
  if (!ref) return { ok: false, code: 'send_failed', message: `${parsed.ref.platform} refused the message again; see the gateway log` };
  const sent = await o.store.markDeliverySent(id, ref.messageId);
  return { ok: true, delivery: sent ?? row };
}
