/**
 * Pairing requests and the allowlist on SQLite. One pending code per user at a time; approving a code
 * adds its user to the allowlist in the same transaction, so an approval is never half applied.
 */
import { newPairingCode } from '../ids';
import type { AccessStore, AllowlistRow, NewPairing, PairingDecision, PairingRow } from '../types';
import { clampLimit, where, type Sql } from './sql';

export function accessMethods(q: Sql): AccessStore {
  const get = (code: string) => q.get<PairingRow>('SELECT * FROM pairing_requests WHERE code = ?', code.trim().toUpperCase());
  const allow = (platform: string, userId: string, by: string | null, at: number) =>
    q.run('INSERT OR IGNORE INTO allowlist (platform, user_id, added_by, created_at) VALUES (?, ?, ?, ?)', platform, userId, by, at).changes === 1;

  return {
    async requestPairing(p: NewPairing) {
      const at = p.created_at ?? q.now();
      return q.tx(() => {
        const open = q.get<PairingRow>(
          `SELECT * FROM pairing_requests WHERE platform = ? AND user_id = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at DESC LIMIT 1`,
          p.platform, p.user_id, at,
        );
        if (open) return open;
        for (;;) {
          const code = newPairingCode();
          const r = q.run(
            `INSERT OR IGNORE INTO pairing_requests (code, platform, user_id, user_name, chat, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
            code, p.platform, p.user_id, p.user_name ?? null, p.chat ?? null, at, p.expires_at,
          );
          if (r.changes === 1) return get(code)!;
        }
      });
    },

    async getPairing(code) {
      return get(code);
    },

    async decidePairing(code, decision, by, at): Promise<PairingDecision> {
      const now = at ?? q.now();
      return q.tx((): PairingDecision => {
        const row = get(code);
        if (!row) return { ok: false, reason: 'not_found' };
        if (row.state !== 'pending') return { ok: false, reason: 'already_decided', row };
        if (row.expires_at <= now) {
          q.run(`UPDATE pairing_requests SET state = 'expired' WHERE code = ?`, row.code);
          return { ok: false, reason: 'expired', row: get(row.code)! };
        }
        q.run('UPDATE pairing_requests SET state = ?, decided_at = ? WHERE code = ?', decision, now, row.code);
        if (decision === 'approved') allow(row.platform, row.user_id, by, now);
        return { ok: true, row: get(row.code)! };
      });
    },

    async listPairings(f = {}) {
      const w = where([['state = ?', f.state]]);
      return q.all<PairingRow>(`SELECT * FROM pairing_requests ${w.sql} ORDER BY created_at DESC, code LIMIT ?`, ...w.params, clampLimit(f.limit, 100));
    },

    async expirePairings(now) {
      return q.run(`UPDATE pairing_requests SET state = 'expired' WHERE state = 'pending' AND expires_at <= ?`, now).changes;
    },

    async allowUser(platform, userId, by, at) {
      return allow(platform, userId, by, at ?? q.now());
    },

    async disallowUser(platform, userId) {
      return q.run('DELETE FROM allowlist WHERE platform = ? AND user_id = ?', platform, userId).changes > 0;
    },

    async isAllowed(platform, userId) {
      return q.get('SELECT 1 FROM allowlist WHERE platform = ? AND user_id = ?', platform, userId) !== undefined;
    },

    async listAllowed(platform) {
      const w = where([['platform = ?', platform]]);
      return q.all<AllowlistRow>(`SELECT * FROM allowlist ${w.sql} ORDER BY platform, user_id`, ...w.params);
    },
  };
}
