/**
 * Which stream messages become usage rows (engine.md §8.5), shared by the live recorder and the reindex:
 * a `token_usage` gives a row with its `request` counts; a `request_end` that did not complete gives a
 * zero-token row carrying its status. Everything else gives none.
 */
import { isPayload } from '../../core/omnimessage/guards';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { UsageInput } from './types';

/** Who a row is attributed to: the top-level session, the subagent it came from, and that session's model. */
export type UsageAttribution = Omit<UsageInput, 'ts' | 'counts' | 'status'>;

export function usageRowFromMessage(msg: OmniMessage, who: UsageAttribution): UsageInput | undefined {
  const ts = Date.parse(msg.timestamp);
  if (Number.isNaN(ts)) return undefined;
  if (isPayload(msg, 'token_usage')) {
    const r = msg.payload.request;
    return { ...who, ts, counts: { cache_read: r.cache_read, cache_write: r.cache_write, output: r.output, total: r.total }, status: 'completed' };
  }
  if (isPayload(msg, 'request_end') && msg.payload.status !== 'completed') {
    return { ...who, ts, status: msg.payload.status };
  }
  return undefined;
}
