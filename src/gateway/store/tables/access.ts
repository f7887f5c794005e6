/**
 * Pairing requests and the allowlist, for users and for groups (`kind`). One pending code per subject at a
 * time (looked up and created in one transaction); approving a code adds its subject to the allowlist in
 * the same transaction, so an approval is never half applied.
 */
import { newPairingCode } from '../ids';
import type { AccessKind, AccessStore, AllowlistRow, NewPairing, PairingDecision, PairingRow } from '../types';
import { clampLimit, where, type Sql } from './sql';

const get = (q: Sql, code: string) => q.get<PairingRow>('SELECT * FROM pairing_requests WHERE code = ?', code.trim().toUpperCase());
const allow = async (q: Sql, platform: string, kind: AccessKind, userId: string, by: string | null, at: number) =>
  (await q.run('INSERT INTO allowlist (platform, kind, user_id, added_by, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', platform, kind, userId, by, at)) === 1;

export function accessMethods(q: Sql): AccessStore {
  return {
    async requestPairing(p: NewPairing) {
      const at = p.created_at ?? q.now();
      const kind = p.kind ?? 'user';
      return q.tx(async (t) => {
        const open = await t.get<PairingRow>(
          `SELECT * FROM pairing_requests WHERE platform = ? AND kind = ? AND user_id = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at DESC LIMIT 1`,
          p.platform, kind, p.user_id, at,
        );
        if (open) return { row: open, created: false };
        for (;;) {
          const row = await t.get<PairingRow>(
            `INSERT INTO pairing_requests (code, platform, kind, user_id, user_name, chat, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT DO NOTHING RETURNING *`,
            newPairingCode(), p.platform, kind, p.user_id, p.user_name ?? null, p.chat ?? null, at, p.expires_at,
          );
          if (row) return { row, created: true };
        }
      });
    },

    async getPairing(code) {
      return get(q, code);
    },

    async decidePairing(code, decision, by, at): Promise<PairingDecision> {
      const now = at ?? q.now();
      return q.tx(async (t): Promise<PairingDecision> => {
        const row = await get(t, code);
        if (!row) return { ok: false, reason: 'not_found' };
        if (row.state !== 'pending') return { ok: false, reason: 'already_decided', row };
        if (row.expires_at <= now) {
          const expired = await t.get<PairingRow>(`UPDATE pairing_requests SET state = 'expired' WHERE code = ? RETURNING *`, row.code);
          return { ok: false, reason: 'expired', row: expired! };
        }
        const decided = await t.get<PairingRow>('UPDATE pairing_requests SET state = ?, decided_at = ? WHERE code = ? RETURNING *', decision, now, row.code);
        if (decision === 'approved') await allow(t, row.platform, row.kind, row.user_id, by, now);
        return { ok: true, row: decided! };
      });
    },

    async listPairings(f = {}) {
      const w = where([['state = ?', f.state]]);
      return q.all<PairingRow>(`SELECT * FROM pairing_requests ${w.sql} ORDER BY created_at DESC, code LIMIT ?`, ...w.params, clampLimit(f.limit, 100));
    },

    async restorePairing(r) {
      const told = r.state === 'approved' || r.state === 'denied' ? r.decided_at : null;
      await q.run(
        `INSERT INTO pairing_requests (code, platform, kind, user_id, user_name, chat, state, created_at, expires_at, decided_at, notified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (code) DO UPDATE SET state = excluded.state, decided_at = excluded.decided_at, expires_at = excluded.expires_at,
           notified_at = COALESCE(pairing_requests.notified_at, excluded.notified_at)`,
        r.code, r.platform, r.kind, r.user_id, r.user_name, r.chat, r.state, r.created_at, r.expires_at, r.decided_at, told,
      );
    },

    async listUnnotifiedPairings(limit) {
      return q.all<PairingRow>(
        `SELECT * FROM pairing_requests WHERE notified_at IS NULL AND state IN ('approved', 'denied') ORDER BY decided_at, code LIMIT ?`,
        clampLimit(limit, 100),
      );
    },

    async markPairingNotified(code, at) {
      return (await q.run('UPDATE pairing_requests SET notified_at = ? WHERE code = ? AND notified_at IS NULL', at ?? q.now(), code)) === 1;
    },

    async expirePairings(now) {
      return q.run(`UPDATE pairing_requests SET state = 'expired' WHERE state = 'pending' AND expires_at <= ?`, now);
    },

    async allowUser(platform, userId, by, at, kind = 'user') {
      return allow(q, platform, kind, userId, by, at ?? q.now());
    },

    async disallowUser(platform, userId, kind = 'user') {
      return (await q.run('DELETE FROM allowlist WHERE platform = ? AND kind = ? AND user_id = ?', platform, kind, userId)) > 0;
    },

    async isAllowed(platform, userId, kind = 'user') {
      return (await q.get('SELECT 1 FROM allowlist WHERE platform = ? AND kind = ? AND user_id = ?', platform, kind, userId)) !== undefined;
    },

    async listAllowed(platform) {
      const w = where([['platform = ?', platform]]);
      return q.all<AllowlistRow>(`SELECT platform, kind, user_id, added_by, created_at FROM allowlist ${w.sql} ORDER BY platform, kind DESC, user_id`, ...w.params);
    },
  };
}
