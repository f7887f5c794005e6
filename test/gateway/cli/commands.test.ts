/**
 * migrate, reindex, pairing and start against a temp PENGUIN_HOME: migrate prints from → to and is a
 * no-op the second time (and refuses a newer schema); reindex rebuilds sessions and usage from a trace;
 * pairing approve/deny/list drive the store's pairing table; start hands the loaded config to
 * startGateway and returns the exit code its shutdown reports.
 */
import { join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import { TraceWriter, tracesDir } from '../../../src/core/trace';
import type { StartGatewayOptions } from '../../../src/gateway/cli/index';
import { MIGRATIONS, openSqliteStore } from '../../../src/gateway/store';
import { cliEnv, type CliEnv } from './helpers';

let c: CliEnv;
beforeEach(() => {
  c = cliEnv();
});
afterEach(() => {
  b.setMessageClock();
  c.cleanup();
});
const dbPath = () => join(c.home, 'gateway.db');
const latest = MIGRATIONS.length;

describe('migrate', () => {
  it('creates and migrates the database, then reports it up to date', async () => {
    const first = await c.run(['migrate']);
    expect(first).toEqual({ code: 0, stdout: `${dbPath()}: migrated schema version 0 → ${latest} (applied ${MIGRATIONS.map((m) => m.version).join(', ')})\n`, stderr: '' });
    const second = await c.run(['migrate']);
    expect(second).toEqual({ code: 0, stdout: `${dbPath()}: schema version ${latest}, up to date\n`, stderr: '' });
  });

  it('refuses a database written by a newer release', async () => {
    const s = openSqliteStore(dbPath());
    s.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(latest + 1, 'future', 0);
    await s.close();
    const r = await c.run(['migrate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is at schema version ${latest + 1}, but this penguin-gateway only knows versions up to ${latest}`);
  });
});

describe('reindex', () => {
  it('rebuilds sessions and usage from the traces and prints the report', async () => {
    let t = Date.parse('2027-03-01T09:00:00.000Z');
    b.setMessageClock(() => new Date((t += 1000)));
    const sid = 'session-2027-03-01-09-00-00-0123abcd';
    const w = new TraceWriter({ tracesDir: tracesDir(c.home, 'proj', 'agent'), sessionId: sid });
    const counts = { cache_read: 0, cache_write: 100, output: 20, total: 120 };
    for (const m of [
      b.sessionMeta({ session_id: sid, provider: 'openai', model_id: 'm', model_context_window: 128000, system_prompt: 's', agent_state: '/a', workspace: '/w' }),
      b.userText('hi'),
      b.requestBegin(),
      b.assistantText('hello'),
      b.tokenUsage(counts, counts),
      b.requestEnd('completed'),
    ]) w.append(m);
    await w.flush();

    const r = await c.run(['reindex']);
    expect(r).toEqual({ code: 0, stdout: `Reindexed ${c.home}: 1 session, 1 usage row.\n`, stderr: '' });
    const s = openSqliteStore(dbPath());
    try {
      expect(await s.getSession(sid)).toMatchObject({ project_id: 'proj', agent_id: 'agent', output: 20, total: 120 });
      expect(await s.listUsage()).toHaveLength(1);
    } finally {
      await s.close();
    }
    expect((await c.run(['reindex'])).stdout).toBe(`Reindexed ${c.home}: 1 session, 1 usage row.\n`);
  });

  it('succeeds on an empty data root', async () => {
    expect(await c.run(['reindex'])).toEqual({ code: 0, stdout: `Reindexed ${c.home}: 0 sessions, 0 usage rows.\n`, stderr: '' });
  });
});

describe('pairing', () => {
  async function request(user_id: string, expires_at = Date.now() + 3_600_000) {
    const s = openSqliteStore(dbPath());
    try {
      return (await s.requestPairing({ platform: 'telegram', user_id, user_name: 'ann', expires_at })).row;
    } finally {
      await s.close();
    }
  }
  async function allowed(user_id: string) {
    const s = openSqliteStore(dbPath());
    try {
      return await s.isAllowed('telegram', user_id);
    } finally {
      await s.close();
    }
  }

  it('lists pending requests, approves one (case-insensitively) and refuses to decide it again', async () => {
    const p = await request('42');
    const list = await c.run(['pairing', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${p.code}  pending   telegram user 42 \\(ann\\)  requested \\S+Z  expires \\S+Z\\n$`));

    const r = await c.run(['pairing', 'approve', p.code.toLowerCase()]);
    expect(r).toEqual({ code: 0, stdout: `✓ approved ${p.code}: telegram user 42 (ann) is on the allowlist and may talk to the bot. The running gateway tells them within a few seconds (or when it next starts).\n`, stderr: '' });
    expect(await allowed('42')).toBe(true);

    const again = await c.run(['pairing', 'deny', p.code]);
    expect(again).toEqual({ code: 1, stdout: '', stderr: `penguin-gateway: pairing code ${p.code} was already approved\n` });
    expect((await c.run(['pairing', 'list'])).stdout).toBe('No pending pairing requests.\n');
    expect((await c.run(['pairing', 'list', '--all'])).stdout).toContain(`${p.code}  approved`);
  });

  it('denies a request without allowlisting the user', async () => {
    const p = await request('43');
    const r = await c.run(['pairing', 'deny', p.code]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`✓ denied ${p.code}: telegram user 43 (ann) stays blocked. The running gateway tells them within a few seconds (or when it next starts).\n`);
    expect(await allowed('43')).toBe(false);
  });

  it('fails on an unknown or expired code', async () => {
    const p = await request('44', 1000);
    const expired = await c.run(['pairing', 'approve', p.code]);
    expect(expired.code).toBe(1);
    expect(expired.stderr).toContain(`pairing code ${p.code} has expired`);
    const unknown = await c.run(['pairing', 'approve', 'ABCDEFGH']);
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'penguin-gateway: no pairing request with code ABCDEFGH\n' });
  });
});

describe('start', () => {
  it('passes the validated config to startGateway and returns its shutdown exit code', async () => {
    c.env.PENGUIN_GATEWAY_PORT = '7777';
    const seen: StartGatewayOptions[] = [];
    const r = await c.run(['start'], {
      loadStart: () => async (opts) => {
        seen.push(opts);
        opts.stdout.write('listening\n');
        return { done: Promise.resolve(3) };
      },
    });
    expect(r).toEqual({ code: 3, stdout: 'listening\n', stderr: '' });
    expect(seen).toHaveLength(1);
    expect(seen[0].config).toMatchObject({ home: c.home, listen: { host: '127.0.0.1', port: 7777 } });
    expect(seen[0].env).toBe(c.env);
  });

  it('exits 1 with the reason when the gateway cannot start', async () => {
    const r = await c.run(['start'], {
      loadStart: () => async () => {
        throw new Error('cannot listen on 127.0.0.1:7370: the address is in use');
      },
    });
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'penguin-gateway: could not start: cannot listen on 127.0.0.1:7370: the address is in use\n' });
  });

  it('shows only the first line of a multi-line start failure', async () => {
    const r = await c.run(['start'], {
      loadStart: () => {
        throw new Error("Cannot find module '../main'\nRequire stack:\n- cli/start.js");
      },
    });
    expect(r).toEqual({ code: 1, stdout: '', stderr: "penguin-gateway: could not start: Cannot find module '../main'\n" });
  });
});
