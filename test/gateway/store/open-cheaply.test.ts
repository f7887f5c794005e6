/**
 * Opening a conversation is cheap on the store: the journal writes entries appended while a write is in
 * flight together, each still on disk before its call resolves, and `openSession` is one index transaction
 * and one journal write that a reindex restores like createSession + bind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { journaled, JournalFile, journalPath, openSqliteStore, reindexFromFiles, type SqliteStore } from '../../../src/gateway/store';
import { tempDir } from './helpers';

const S = (n: number) => `session-2027-01-15-08-00-00-${String(n).padStart(8, '0')}`;

let dir: string;
let index: SqliteStore;
beforeEach(() => {
  dir = tempDir('pg-group-');
  index = openSqliteStore(join(dir, 'gateway.db'));
});
afterEach(() => index.close());

describe('the journal under a burst', () => {
  it('writes entries appended meanwhile together, every one whole, in order and on disk before its call resolves', async () => {
    const journal = new JournalFile(journalPath(dir));
    const lines = () => readFileSync(journal.path, 'utf8').split('\n').filter(Boolean);
    const first = journal.append({ t: 'unbind', at: 0, binding_key: 'k0' });
    const rest = Array.from({ length: 99 }, (_, i) => journal.append({ t: 'unbind', at: i + 1, binding_key: `k${i + 1}` }));
    await first;
    // The other 99 arrived while the first was being written: they are one write, landing together (it may be
    // under way already: the descriptor is held, so it starts as the first resolves), never a few at a time.
    expect([1, 100]).toContain(lines().length);
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
