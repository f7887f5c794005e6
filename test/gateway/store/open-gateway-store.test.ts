/**
 * openGatewayStore at start: a first start on an empty data root is quiet; a database that is missing while
 * files exist, or that SQLite cannot read, is rebuilt from the traces and the journal (the unreadable one
 * moved aside, not deleted) and the handle says so; a healthy database is opened as it is.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeRebuild, openGatewayStore } from '../../../src/gateway/store';
import { tempDir } from './helpers';

const SID = 'session-2027-01-15-08-00-00-aaaaaaaa';

async function seeded(home: string): Promise<void> {
  const h = await openGatewayStore({ dbPath: join(home, 'gateway.db'), home });
  expect(h.rebuilt).toBeUndefined();
  await h.store.createSession({ session_id: SID, project_id: 'p', agent_id: 'a', route: 'default', platform: 'web', binding_key: 'web:c1', title: 'Kept' });
  await h.store.bind('web:c1', SID);
  await h.index.close();
}

describe('openGatewayStore', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir('pg-open-');
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));
  const db = () => join(home, 'gateway.db');

  it('opens a healthy database without rebuilding it', async () => {
    await seeded(home);
    const h = await openGatewayStore({ dbPath: db(), home });
    expect(h.rebuilt).toBeUndefined();
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    await h.index.close();
  });

  it('rebuilds a missing database from the files and says so', async () => {
    await seeded(home);
    for (const f of readdirSync(home)) if (f.startsWith('gateway.db')) rmSync(join(home, f));
    const h = await openGatewayStore({ dbPath: db(), home });
    expect(h.rebuilt).toMatchObject({ reason: 'missing', report: { journalEntries: 2, problems: [] } });
    expect(describeRebuild(h.rebuilt!, db())).toBe(`${db()} was missing; rebuilt the index from the files: 0 sessions, 0 usage rows, 2 journal entries`);
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    expect((await h.store.getSession(SID))?.title).toBe('Kept');
    await h.index.close();
  });

  it('moves a file that is not a database aside and rebuilds', async () => {
    await seeded(home);
    for (const f of readdirSync(home)) if (f.startsWith('gateway.db')) rmSync(join(home, f));
    writeFileSync(db(), 'this is not an SQLite database, just bytes '.repeat(200));
    const h = await openGatewayStore({ dbPath: db(), home, now: () => Date.parse('2027-01-15T09:00:00.000Z') });
    expect(h.rebuilt).toMatchObject({ reason: 'corrupt', movedTo: `${db()}.corrupt-2027-01-15T09-00-00-000Z`, error: expect.stringMatching(/not a database/) });
    expect(existsSync(h.rebuilt!.movedTo!)).toBe(true);
    expect(await h.store.resolveBinding('web:c1')).toBe(SID);
    await h.index.close();
  });

  it('is quiet on a first start with nothing to rebuild', async () => {
    const h = await openGatewayStore({ dbPath: db(), home });
    expect(h.rebuilt).toBeUndefined();
    await h.index.close();
  });
});
