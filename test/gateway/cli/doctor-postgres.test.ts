/**
 * doctor, migrate and reindex with PENGUIN_DATABASE_URL, against the test PostgreSQL server: doctor reports
 * the server and schema versions (or that start creates the schema), fails with the right fix for a wrong
 * password, an unreachable server or a missing database, and never prints the password; migrate and
 * reindex work on the database the URL names (moving an index from SQLite is a reindex into it).
 */
import { mkdirSync } from 'node:fs';
import { checkPostgres } from '../../../src/gateway/cli/doctor/postgres';
import { hashAdminToken, MIGRATIONS, openPostgresStore } from '../../../src/gateway/store';
import { describePostgres, tempDir, type TestTarget } from '../store/helpers';
import { cliEnv } from './helpers';

const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);
const withPassword = (url: string, pw: string) => {
  const u = new URL(url);
  u.password = pw;
  return u.toString();
};

describePostgres('doctor on PostgreSQL', (backend) => {
  let target: TestTarget;
  let url: string;
  beforeEach(async () => {
    target = await backend.target(tempDir());
    url = target.where.databaseUrl!;
  });

  it('reports the server version and that start creates the schema, without the password', async () => {
    const [db, token] = await checkPostgres({ database_url: url }, 5000);
    expect(db).toMatchObject({ name: 'database', status: 'ok', detail: expect.stringMatching(/\(PostgreSQL \d+\.\d+.*\) has no gateway schema yet; start creates it/) });
    expect(db.detail).toContain(':***@127.0.0.1');
    expect(db.detail).not.toContain(passwordOf(url));
    expect(token.detail).toBe('none yet: start generates one and prints it once');
  });

  it('reports the schema version and the stored admin tokens, and fails on a newer schema', async () => {
    const s = await openPostgresStore(url);
    await s.addAdminTokenHash(hashAdminToken('t'));
    await s.close();
    const [db, token] = await checkPostgres({ database_url: url }, 5000);
    expect(db).toMatchObject({ status: 'ok', detail: expect.stringMatching(new RegExp(`connects, schema version ${MIGRATIONS.length} \\(current\\)$`)) });
    expect(token.detail).toBe('1 generated token stored (as hashes)');
    await target.exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${MIGRATIONS.length + 1}, 'future', 0)`);
    expect((await checkPostgres({ database_url: url }, 5000))[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining('newer than this release knows') });
  });

  it('says what to fix for a wrong password, an unreachable server and a missing database', async () => {
    const wrong = await checkPostgres({ database_url: withPassword(url, 'not-the-password') }, 5000);
    expect(wrong[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining('password authentication failed'), fix: expect.stringContaining('user and password') });
    expect(JSON.stringify(wrong)).not.toContain('not-the-password');

    const closed = new URL(url);
    closed.port = '1';
    const down = await checkPostgres({ database_url: closed.toString() }, 5000);
    expect(down[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining('cannot connect to postgres://postgres:***@127.0.0.1:1/'), fix: expect.stringContaining('host and port') });

    const missing = new URL(url);
    missing.pathname = '/no_such_db';
    const absent = await checkPostgres({ database_url: missing.toString() }, 5000);
    expect(absent[0]).toMatchObject({ status: 'fail', fix: expect.stringContaining('createdb no_such_db') });
    expect(JSON.stringify([down, absent])).not.toContain(passwordOf(url));
  });

  it('runs in `doctor`, and `migrate` then `reindex` fill the database the URL names', async () => {
    const c = cliEnv({ PENGUIN_DATABASE_URL: url, OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', PENGUIN_MODEL: 'm' });
    try {
      let r = await c.run(['doctor']);
      const line = r.stdout.split('\n').find((l) => /^. database /.test(l));
      expect(line).toMatch(/^✓ database .*has no gateway schema yet/);
      expect(r.stdout).not.toContain(passwordOf(url));

      r = await c.run(['migrate']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/.*: migrated schema version 0 → ${MIGRATIONS.length}`));
      expect(await target.tables()).toContain('sessions');

      mkdirSync(c.home, { recursive: true });
      r = await c.run(['reindex']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Reindexed ${c.home}: 0 sessions, 0 usage rows.`);
      expect(r.stdout + r.stderr).not.toContain(passwordOf(url));
    } finally {
      c.cleanup();
    }
  });
});
