/**
 * Approvals. A decision moves a row out of `pending` exactly once (`UPDATE … WHERE state = 'pending'`),
 * so repeated clicks, a timeout racing a click, or two processes deciding at once all resolve to one
 * outcome that every caller can read back; closing many at once is one UPDATE that returns what it closed.
 */
import { newApprovalId } from '../ids';
import type { ApprovalRow, ApprovalState, ApprovalStore, FinalApprovalState, MessageRef, NewApproval } from '../types';
import { clampLimit, sortedBy, where, type Sql } from './sql';

interface Raw extends Omit<ApprovalRow, 'card'> {
  card_platform: string | null;
  card_chat: string | null;
  card_message_id: string | null;
}

function toRow(r: Raw): ApprovalRow {
  const { card_platform, card_chat, card_message_id, ...rest } = r;
  const card: MessageRef | null =
    card_platform !== null && card_chat !== null && card_message_id !== null ? { platform: card_platform, chat: card_chat, message_id: card_message_id } : null;
  return { ...rest, card };
}

export function approvalMethods(q: Sql): ApprovalStore {
  const get = async (id: string) => {
    const r = await q.get<Raw>('SELECT * FROM approvals WHERE id = ?', id);
    return r && toRow(r);
  };
  const closeWhere = async (clause: string, params: unknown[], state: FinalApprovalState, by: string | null, at: number): Promise<ApprovalRow[]> => {
    const rows = await q.all<Raw>(`UPDATE approvals SET state = ?, decided_by = ?, decided_at = ? WHERE state = 'pending' AND ${clause} RETURNING *`, state, by, at, ...params);
    return sortedBy(rows, 'created_at', 'id').map(toRow);
  };

  return {
    async createApproval(a: NewApproval) {
      const created = a.created_at ?? q.now();
      // 50 random bits: a clash is vanishingly rare, but a retry costs nothing.
      for (;;) {
        const r = await q.get<Raw>(
          `INSERT INTO approvals (id, session_id, origin_session_id, tool_call_id, tool_name, requester, created_at, expires_at, task_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
          newApprovalId(), a.session_id, a.origin_session_id ?? null, a.tool_call_id, a.tool_name, a.requester ?? null, created, a.expires_at, a.task_id ?? null,
        );
        if (r) return toRow(r);
      }
    },

    async getApproval(id) {
      return get(id);
    },

    async setApprovalCard(id, card) {
      return (await q.run('UPDATE approvals SET card_platform = ?, card_chat = ?, card_message_id = ? WHERE id = ?', card.platform, card.chat, card.message_id, id)) > 0;
    },

    async decideApproval(id, state, by, at) {
      const changed = (await q.run(`UPDATE approvals SET state = ?, decided_by = ?, decided_at = ? WHERE id = ? AND state = 'pending'`, state, by, at ?? q.now(), id)) > 0;
      const row = await get(id);
      return row && { changed, row };
    },

    async expireApprovals(now) {
      return closeWhere('expires_at <= ?', [now], 'expired', null, now);
    },

    async closePendingApprovals(state, filter = {}, by = null) {
      const w = where([
        ['session_id = ?', filter.session_id],
        ['task_id = ?', filter.task_id],
      ]);
      return closeWhere(w.sql ? w.sql.slice('WHERE '.length) : '1 = 1', w.params, state, by, q.now());
    },

    async listApprovals(f: { state?: ApprovalState; session_id?: string; limit?: number; offset?: number } = {}) {
      const w = where([
        ['state = ?', f.state],
        ['session_id = ?', f.session_id],
      ]);
      return (await q.all<Raw>(`SELECT * FROM approvals ${w.sql} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, ...w.params, clampLimit(f.limit, 100), Math.max(0, f.offset ?? 0))).map(toRow);
    },
  };
}
