/** Admin token hashes: the plain token is shown once at generation and never stored. */
import type { AdminTokenRow, AdminTokenStore } from '../types';
import type { Sql } from './sql';

export function adminTokenMethods(q: Sql): AdminTokenStore {
  return {
    async addAdminTokenHash(hash, at) {
      return (await q.run('INSERT INTO admin_tokens (hash, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING', hash, at ?? q.now())) === 1;
    },
    async hasAdminTokenHash(hash) {
      return (await q.get('SELECT 1 FROM admin_tokens WHERE hash = ?', hash)) !== undefined;
    },
    async listAdminTokens() {
      return q.all<AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at, hash');
    },
    async revokeAdminTokenHash(hash) {
      return (await q.run('DELETE FROM admin_tokens WHERE hash = ?', hash)) > 0;
    },
  };
}
