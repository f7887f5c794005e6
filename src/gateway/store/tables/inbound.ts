/**
 * Inbound dedupe: a redelivered platform event (Slack retries, Telegram update_id, Discord interaction id)
 * is recognised by its (platform, event id) primary key; old rows are pruned on demand.
 */
import type { InboundStore } from '../types';
import type { Sql } from './sql';

export function inboundMethods(q: Sql): InboundStore {
  return {
    async recordInbound(platform, eventId, at) {
      return (await q.run('INSERT INTO inbound_events (platform, event_id, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', platform, eventId, at ?? q.now())) === 1;
    },
    async pruneInbound(before) {
      return q.run('DELETE FROM inbound_events WHERE received_at < ?', before);
    },
  };
}
