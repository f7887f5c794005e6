/**
 * The cluster tables (migration 9): heartbeats, conversation ownership and the owners' mailbox. Claims and
 * takeovers are single transactions, so two instances racing for one conversation (or for one dead peer's
 * conversations) end with one owner. Key lists are queried in chunks (SQLite has no array parameters).
 */
import type { ClusterStore, InstanceRow, MailRow, Takeover } from '../cluster-types';
import { chunked, placeholders, sortedBy, type Sql } from './sql';

const NO_LIVE_OWNER = 'instance_id <> ? AND instance_id NOT IN (SELECT instance_id FROM instances)';

export function clusterMethods(q: Sql): ClusterStore {
  return {
    async heartbeat(id, url, startedAt, at) {
      const now = at ?? q.now();
      if ((await q.run('UPDATE instances SET heartbeat_at = ?, url = ? WHERE instance_id = ?', now, url, id)) === 1) return 'renewed';
      await q.run(
        `INSERT INTO instances (instance_id, url, started_at, heartbeat_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, url = excluded.url`,
        id, url, startedAt, now,
      );
      return 'registered';
    },

    async listInstances() {
      return q.all<InstanceRow>('SELECT * FROM instances ORDER BY instance_id');
    },

    async leaveCluster(id) {
      await q.tx(async (t) => {
        await t.run('DELETE FROM conversation_owners WHERE instance_id = ?', id);
        await t.run('DELETE FROM instances WHERE instance_id = ?', id);
      });
    },

    // One statement, not a transaction: the row lock settles racing claimers (the loser re-checks the row the
    // winner wrote), where serializable transactions of a burst of new conversations kept failing each other.
    async claimConversation(key, id, aliveSince, at) {
      await q.run(
        `INSERT INTO conversation_owners (binding_key, instance_id, since) VALUES (?, ?, ?)
         ON CONFLICT (binding_key) DO UPDATE SET instance_id = excluded.instance_id, since = excluded.since
         WHERE conversation_owners.instance_id <> excluded.instance_id
           AND conversation_owners.instance_id NOT IN (SELECT instance_id FROM instances WHERE heartbeat_at >= ?)`,
        key, id, at ?? q.now(), aliveSince,
      );
      const row = await q.get<{ instance_id: string }>('SELECT instance_id FROM conversation_owners WHERE binding_key = ?', key);
      return row?.instance_id ?? id;
    },

    async conversationOwners(keys) {
      const out = new Map<string, string>();
      for (const part of chunked([...new Set(keys)])) {
        const rows = await q.all<{ binding_key: string; instance_id: string }>(
          `SELECT binding_key, instance_id FROM conversation_owners WHERE binding_key IN (${placeholders(part.length)})`, ...part,
        );
        for (const r of rows) out.set(r.binding_key, r.instance_id);
      }
      return out;
    },

    async conversationsOwnedBy(id) {
      const rows = await q.all<{ binding_key: string }>('SELECT binding_key FROM conversation_owners WHERE instance_id = ? ORDER BY binding_key', id);
      return rows.map((r) => r.binding_key);
    },

    async takeOverDead(id, aliveSince, at) {
      const now = at ?? q.now();
      return q.tx(async (t): Promise<Takeover> => {
        const dead = await t.all<{ instance_id: string }>('SELECT instance_id FROM instances WHERE heartbeat_at < ? AND instance_id <> ?', aliveSince, id);
        for (const d of dead) await t.run('DELETE FROM instances WHERE instance_id = ?', d.instance_id);
        const rows = sortedBy(await t.all<{ binding_key: string; instance_id: string }>(`SELECT binding_key, instance_id FROM conversation_owners WHERE ${NO_LIVE_OWNER}`, id), 'binding_key');
        if (rows.length > 0) await t.run(`UPDATE conversation_owners SET instance_id = ?, since = ? WHERE ${NO_LIVE_OWNER}`, id, now, id);
        await t.run('UPDATE cluster_mailbox SET to_instance = ? WHERE to_instance <> ? AND to_instance NOT IN (SELECT instance_id FROM instances)', id, id);
        const instances = [...new Set([...dead.map((d) => d.instance_id), ...rows.map((r) => r.instance_id)])].sort();
        return { instances, keys: rows.map((r) => r.binding_key) };
      });
    },

    async postMail(m, at) {
      const row = await q.get<{ id: number }>(
        'INSERT INTO cluster_mailbox (to_instance, from_instance, kind, body, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
        m.to_instance, m.from_instance, m.kind, m.body, at ?? q.now(),
      );
      return row!.id;
    },

    async takeMail(id) {
      return sortedBy(await q.all<MailRow>('DELETE FROM cluster_mailbox WHERE to_instance = ? RETURNING *', id), 'id');
    },
  };
}
