/**
 * Opening a conversation is cheap on the store: with group commit (the gateway's connection), the writes
 * of one event-loop turn share one transaction and each call resolves only once it is committed (another
 * connection sees it then); a transaction that fails to commit fails every write in it. The journal writes
 * entries appended while a write is in flight together, each still on disk before its call resolves, and
 * `openSession` is one index write and one journal write that a reindex restores like createSession + bind.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { journaled, JournalFile, journalPath, openSqliteStore, reindexFromFiles, type SqliteStore } from '../../../src/gateway/store';
import { Sql } from '../../../src/gateway/store/sqlite/sql';
import { tempDir } from './helpers';

const S = (n: number) => `session-2027-01-15-08-00-00-${String(n).padStart(8, '0')}`;

let dir: string;
let index: SqliteStore;
beforeEach(() => {
  dir = tempDir('pg-group-');
  index = openSqliteStore(join(dir, 'gateway.db'), { groupCommit: true });
});
afterEach(() => index.close());

describe('group commit', () => {
  it('commits the writes of one turn together, each call resolving once another connection can see it', async () => {
    const other = new Database(join(dir, 'gateway.db'), { readonly: true });
    try {
      const count = () => (other.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
      const writes = Array.from({ length: 50 }, (_, i) => index.createSession({ session_id: S(i), project_id: 'p', agent_id: 'a' }));
      // All 50 rows were written in this turn, inside one open transaction: nobody else sees them yet.
      expect(count()).toBe(0);
      expect(index.db.inTransaction).toBe(true);
      await writes[0];
      expect(count()).toBe(50);
      await Promise.all(writes);
      expect(index.db.inTransaction).toBe(false);
      // A read after a write in the same turn sees it.
      const w = index.updateSession(S(1), { title: 'seen' });
      expect((await index.getSession(S(1)))?.title).toBe('seen');
      await w;
    } finally {
      other.close();
    }
  });

  it('fails every write of a transaction that does not commit', async () => {
    const db = new Database(join(dir, 'deferred.db'));
    try {
      db.pragma('foreign_keys = ON');
      db.exec('CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (id TEXT, parent TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)');
      const q = new Sql(db, Date.now, true);
      q.run('INSERT INTO parent (id) VALUES (?)', 'p1');
      // Checked only at COMMIT: the whole turn's transaction is refused.
      q.run('INSERT INTO child (id, parent) VALUES (?, ?)', 'c1', 'nobody');
      // (The driver's error class may come from another test file's realm: match its message, not its class.)
      await expect(q.committed()).rejects.toMatchObject({ message: expect.stringMatching(/FOREIGN KEY/) });
      expect(db.prepare('SELECT COUNT(*) AS n FROM parent').get()).toEqual({ n: 0 });
      q.run('INSERT INTO parent (id) VALUES (?)', 'p2');
      await q.committed();
      expect(db.prepare('SELECT id FROM parent').all()).toEqual([{ id: 'p2' }]);
    } finally {
      db.close();
    }
  });

  it('commits what is open when the store closes', async () => {
    void index.createSession({ session_id: S(7), project_id: 'p', agent_id: 'a' });
    await index.close();
    const again = openSqliteStore(join(dir, 'gateway.db'));
    try {
      expect(await again.getSession(S(7))).toBeDefined();
    } finally {
      await again.close();
    }
  });
});

describe('the journal under a burst', () => {
  it('writes entries appended meanwhile together, every one whole, in order and on disk before its call resolves', async () => {
    const journal = new JournalFile(journalPath(dir));
    const lines = () => readFileSync(journal.path, 'utf8').split('\n').filter(Boolean);
    const first = journal.append({ t: 'unbind', at: 0, binding_key: 'k0' });
    const rest = Array.from({ length: 99 }, (_, i) => journal.append({ t: 'unbind', at: i + 1, binding_key: `k${i + 1}` }));
    await first;
    // The other 99 arrived while the first was being written: they are one write, landing together.
    expect(lines()).toHaveLength(1);
    await rest[0];
    expect(lines().map((l) => (JSON.parse(l) as { at: number }).at)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await Promise.all(rest);
  });
});

describe('openSession', () => {
  it('creates the row and its binding, journals both in one write, and a reindex restores them', async () => {
    const journal = new JournalFile(journalPath(dir));
    const store = journaled(index, journal, () => 1_800_000_000_000);
    const row = await store.openSession({ session_id: S(1), project_id: 'p', agent_id: 'a', route: 'default', platform: 'web', binding_key: 'web:c1', approval_mode: 'read-only', created_at: 1_800_000_000_000 });
    expect(row).toMatchObject({ session_id: S(1), binding_key: 'web:c1' });
    expect(await store.resolveBinding('web:c1')).toBe(S(1));
    expect((await journal.read()).entries.map((e) => e.t)).toEqual(['session', 'bind']);
    const rebuilt = openSqliteStore(join(dir, 'rebuilt.db'));
    try {
      await reindexFromFiles(rebuilt, { home: dir });
      expect(await rebuilt.resolveBinding('web:c1')).toBe(S(1));
      expect((await rebuilt.getSession(S(1)))?.binding_key).toBe('web:c1');
    } finally {
      await rebuilt.close();
    }
  });
});
