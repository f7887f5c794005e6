/**
 * The delivery ledger: every outbound platform message with its purpose, state, attempts and what it last
 * showed, so a restart can finalise replies left mid-stream and the dashboard can draw a timeline per
 * message, with the steps of each Task's reply (delivery_events) in order. Each change returns the row it
 * wrote (`RETURNING *`), so a reader never sees a later writer's row instead.
 */
import type { DeliveryEventRow, DeliveryRow, DeliveryState, DeliveryStore, NewDelivery } from '../types';
import { clampLimit, where, type Sql } from './sql';

export function deliveryMethods(q: Sql): DeliveryStore {
  return {
    async createDelivery(d: NewDelivery) {
      const at = q.now();
      const row = await q.get<DeliveryRow>(
        `INSERT INTO deliveries (platform, chat, platform_message_id, session_id, task_id, purpose, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        d.platform, d.chat, d.platform_message_id ?? null, d.session_id ?? null, d.task_id ?? null, d.purpose, d.state ?? 'pending', at, at,
      );
      return row!;
    },

    async getDelivery(id) {
      return q.get<DeliveryRow>('SELECT * FROM deliveries WHERE id = ?', id);
    },

    async markDeliverySent(id, platformMessageId) {
      return q.get<DeliveryRow>(
        `UPDATE deliveries SET state = 'sent', platform_message_id = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? RETURNING *`,
        platformMessageId, q.now(), id,
      );
    },

    async markDeliveryAttemptFailed(id, error, final) {
      return q.get<DeliveryRow>(
        `UPDATE deliveries SET attempts = attempts + 1, last_error = ?, state = CASE WHEN ? = 1 THEN 'failed' ELSE state END, updated_at = ? WHERE id = ? RETURNING *`,
        error.slice(0, 2000), final ? 1 : 0, q.now(), id,
      );
    },

    async setDeliveryState(id, state: DeliveryState) {
      return q.get<DeliveryRow>('UPDATE deliveries SET state = ?, updated_at = ? WHERE id = ? RETURNING *', state, q.now(), id);
    },

    async setDeliveryShown(id, shown) {
      await q.run('UPDATE deliveries SET shown = ?, updated_at = ? WHERE id = ?', shown, q.now(), id);
    },

    async listOpenDeliveries(f = {}) {
      const w = where([
        ['purpose = ?', f.purpose],
        ['platform = ?', f.platform],
      ], [`state IN ('pending', 'sent')`]);
      return q.all<DeliveryRow>(`SELECT * FROM deliveries ${w.sql} ORDER BY created_at, id`, ...w.params);
    },

    async addDeliveryEvent(e) {
      await q.run(
        'INSERT INTO delivery_events (task_id, delivery_id, part, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)',
        e.task_id, e.delivery_id, e.part, e.kind, e.detail?.slice(0, 2000) ?? null, e.at ?? q.now(),
      );
    },

    async listDeliveryEvents(taskId, limit) {
      return q.all<DeliveryEventRow>('SELECT * FROM delivery_events WHERE task_id = ? ORDER BY id LIMIT ?', taskId, clampLimit(limit, 2000));
    },

    async pruneDeliveryEvents(before) {
      return q.run('DELETE FROM delivery_events WHERE at < ?', before);
    },

    async listDeliveries(f = {}) {
      const w = where([
        ['session_id = ?', f.session_id],
        ['task_id = ?', f.task_id],
        ['platform = ?', f.platform],
        ['chat = ?', f.chat],
        ['state = ?', f.state],
      ]);
      const order = f.newest_first ? 'created_at DESC, id DESC' : 'created_at, id';
      return q.all<DeliveryRow>(`SELECT * FROM deliveries ${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`, ...w.params, clampLimit(f.limit, 500), Math.max(0, f.offset ?? 0));
    },
  };
}
