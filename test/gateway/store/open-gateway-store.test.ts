/**
 * openGatewayStore at start, on each backend: a first start on an empty data root is quiet; a database
 * that was lost while files exist (a missing SQLite file, a PostgreSQL database without the schema) is
 * rebuilt from the traces and the journal and the handle says so; a healthy database is opened as it is.
 * On SQLite, a file that is not a database is moved aside, not deleted, and rebuilt.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeRebuild, openGatewayStore } from '../../../src/gateway/store';
import { describeBackends, sqliteBackend, tempDir, type TestTarget } from './helpers';

const SID = 'session-2027-01-15-08-00-00-aaaaaaaa';

async function seeded(home: string, target: TestTarget): Promise<void> {
  const h = await openGatewayStore({ ...target.where, home });
  expect(h.rebuilt).toBeUndefined();
  await h.store.createSession({ session_id: SID, project_id: 'p', agent_id: 'a', route: 'default', platform: 'web', binding_key: 'web:c1', title: 'Kept' });
  await h.store.bind('web:c1', SID);
  await h.index.close();
}

let home: string;
beforeEach(() => {
  home = tempDir('pg-open-');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describeBackends('openGatewayStore', (backend) => {
  it('opens a healthy database without rebuilding it', async () => {
    const target = await backend.target(home);
    await seeded(home, target);
    const h = await openGatewayStore({ ...target.where, home });
    expect(h.rebuilt).toBeUndefined();
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    await h.index.close();
  });

  it('rebuilds a lost database from the files and says so', async () => {
    const target = await backend.target(home);
    await seeded(home, target);
    await target.lose();
    const h = await openGatewayStore({ ...target.where, home });
    const [reason, why] = backend.name === 'sqlite' ? ['missing', 'was missing'] : ['empty', 'had no gateway schema yet'];
    expect(h.rebuilt).toMatchObject({ reason, report: { journalEntries: 2, problems: [] } });
    expect(describeRebuild(h.rebuilt!, h.index.location)).toBe(`${h.index.location} ${why}; rebuilt the index from the files: 0 sessions, 0 usage rows, 2 journal entries`);
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    expect((await h.store.getSession(SID))?.title).toBe('Kept');
    await h.index.close();
  });

  it('is quiet on a first start with nothing to rebuild', async () => {
    const h = await openGatewayStore({ ...(await backend.target(home)).where, home });
    expect(h.rebuilt).toBeUndefined();
    expect(h.index.backend).toBe(backend.name);
    await h.index.close();
  });
});

describe('openGatewayStore on SQLite', () => {
  it('moves a file that is not a database aside and rebuilds', async () => {
    const target = await sqliteBackend.target(home);
    const db = target.where.dbPath;
    await seeded(home, target);
    for (const f of readdirSync(home)) if (f.startsWith('gateway.db')) rmSync(join(home, f));
    writeFileSync(db, 'this is not an SQLite database, just bytes '.repeat(200));
    const h = await openGatewayStore({ dbPath: db, home, now: () => Date.parse('2027-01-15T09:00:00.000Z') });
    expect(h.rebuilt).toMatchObject({ reason: 'corrupt', movedTo: `${db}.corrupt-2027-01-15T09-00-00-000Z`, error: expect.stringMatching(/not a database/) });
    expect(existsSync(h.rebuilt!.movedTo!)).toBe(true);
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    await h.index.close();
  });
});
