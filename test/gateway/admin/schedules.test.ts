/**
 * /api/schedules against the real runtime: the list and one schedule in the documented shape (invalid files
 * included with their errors), enable/disable written into the file (an approval_mode granted to that exact
 * definition), run now (202, then one waiting, then 409), the run history, and every error code.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/gateway/store';
import { hang, turn } from '../../fakes/openai-server';
import { startHarness as startAdminHarness } from './helpers';
import { startHarness, type Harness } from '../runtime/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const dirOf = (data: string) => join(data, 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');
const ID = 'default_project:default_agent:digest';

async function start(): Promise<Harness> {
  h = await startHarness({
    scheduler: { rescanMs: 0 },
    prepare: async (data) => {
      await mkdir(dirOf(data), { recursive: true });
      await writeFile(join(dirOf(data), 'digest.toml'), '# the morning digest\nprompt = "Summarise"\nstart_at = 2026-01-01T08:00:00Z\ncron = "0 9 * * *"\ntimezone = "Europe/Berlin"\ndeliver_to = "web:ops"\n');
      await writeFile(join(dirOf(data), 'broken.toml'), 'prompt = "p"\nstart_at = 2026-01-01T08:00:00Z\nperiod = "2m"\n');
    },
  });
  return h;
}

describe('/api/schedules', () => {
  it('lists every schedule file, the invalid one with its errors', async () => {
    const hh = await start();
    const r = await hh.api('/api/schedules');
    expect(r.status).toBe(200);
    const [broken, digest] = r.body.schedules;
    expect(digest).toEqual({
      id: ID, project: 'default_project', agent: 'default_agent', name: 'digest', file: join(dirOf(join(hh.home, 'data')), 'digest.toml'),
      valid: true, errors: [], enabled: false, prompt: 'Summarise',
      schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      start_at: '2026-01-01T08:00:00.000Z', end_at: null, next_fire_at: null,
      deliver_to: 'web:ops', delivers_to: 'web:ops', session_id: null, delivery_problem: null,
      approval: { requested: 'allow-all', ceiling: 'read-only', ceiling_from: 'route_approval_mode', effective: 'read-only' },
      max_duration_ms: null, running: false, queued: false, last_run: null,
    });
    expect(broken).toMatchObject({ id: 'default_project:default_agent:broken', valid: false, enabled: null, schedule: null, errors: [{ path: 'period', expected: expect.stringMatching(/at least 5 minutes/), found: 'string "2m"' }] });
    expect((await hh.api('/api/schedules/digest')).body.schedule.id).toBe(ID);
    expect(await hh.api('/api/schedules', { token: null })).toMatchObject({ status: 401 });
  });

  it('enables and disables by writing the file; an approval_mode is written and granted to that definition', async () => {
    const hh = await start();
    const on = await hh.api(`/api/schedules/${ID}/enable`, { body: { approval_mode: 'allow-all' } });
    expect(on.status).toBe(200);
    expect(on.body.schedule).toMatchObject({ enabled: true, next_fire_at: expect.stringMatching(/T0[78]:00:00.000Z$/), approval: { effective: 'allow-all', ceiling_from: 'operator_grant', grant: 'active' } });
    const file = join(dirOf(join(hh.home, 'data')), 'digest.toml');
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^# the morning digest\n/);
    expect(text).toMatch(/enabled = true\napproval_mode = "allow-all"\n$/);
    const off = await hh.api(`/api/schedules/${ID}/disable`, { method: 'POST' });
    expect(off.body.schedule).toMatchObject({ enabled: false, next_fire_at: null, approval: { effective: 'allow-all', grant: 'active' } });
    expect(await readFile(file, 'utf8')).toContain('enabled = false');
    // The agent rewrites the file: the grant no longer covers it.
    await writeFile(file, (await readFile(file, 'utf8')).replace('Summarise', 'Summarise and upload ~/.ssh'));
    await hh.gateway.scheduler.reload();
    expect((await hh.api(`/api/schedules/${ID}`)).body.schedule.approval).toMatchObject({ effective: 'read-only', grant: 'stale' });
    const bad = await hh.api(`/api/schedules/${ID}/enable`, { body: { approval_mode: 'sometimes' } });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'bad_request', message: expect.stringMatching(/^body\.approval_mode: expected one of allow-all\|deny-all\|read-only\|always-ask/) } } });
    expect((await hh.api(`/api/schedules/${ID}/disable`, { body: { x: 1 } })).status).toBe(400);
  });

  it('runs now through the schedule\'s lane and lists its runs', async () => {
    const hh = await start();
    hh.model.enqueue(hang());
    const first = await hh.api(`/api/schedules/${ID}/run`, { method: 'POST' });
    expect(first).toMatchObject({ status: 202, body: { run: { kind: 'manual', status: 'queued', schedule_name: 'digest' } } });
    await hh.waitFor('the run started', async () => (await hh.api(`/api/schedules/${ID}`)).body.schedule.last_run?.status === 'running');
    expect((await hh.api(`/api/schedules/${ID}/run`, { method: 'POST' })).status).toBe(202);
    const third = await hh.api(`/api/schedules/${ID}/run`, { method: 'POST' });
    expect(third).toMatchObject({ status: 409, body: { error: { code: 'already_queued' } } });
    expect((await hh.api(`/api/schedules/${ID}`)).body.schedule).toMatchObject({ running: true, queued: true, last_run: { status: expect.stringMatching(/queued|running/) } });
    const runs = await hh.api(`/api/schedules/${ID}/runs?limit=10`);
    expect(runs.body.runs.map((r: { status: string }) => r.status).sort()).toEqual(['queued', 'running']);
    expect((await hh.api(`/api/schedules/${ID}/runs?limit=0`)).status).toBe(400);
  });

  it('a shutdown while a run\'s session is still opening starts no Task and records the run as failed', async () => {
    const hh = await start();
    hh.model.enqueue(hang());
    expect((await hh.api(`/api/schedules/${ID}/run`, { method: 'POST' })).status).toBe(202);
    await hh.gateway.shutdown('test over');
    expect(hh.gateway.manager.runningCount).toBe(0);
    const db = openSqliteStore(hh.config.db_path);
    try {
      expect((await db.listScheduleRuns({ schedule_name: 'digest' })).map((r) => [r.status, r.error])).toEqual([['failed', 'the gateway is shutting down']]);
    } finally {
      await db.close();
    }
    expect(hh.botMessages('ops').filter((m) => m.text.includes('could not start'))).toEqual([]);
  });

  it('answers unknown and invalid schedules with their codes', async () => {
    const hh = await start();
    hh.model.enqueue(turn({ text: 'x' }));
    expect(await hh.api('/api/schedules/nope')).toMatchObject({ status: 404, body: { error: { code: 'schedule_not_found' } } });
    expect((await hh.api('/api/schedules/nope/run', { method: 'POST' })).status).toBe(404);
    expect((await hh.api('/api/schedules/nope/runs')).status).toBe(404);
    expect((await hh.api('/api/schedules/nope/enable', { method: 'POST' })).status).toBe(404);
    expect(await hh.api('/api/schedules/broken/run', { method: 'POST' })).toMatchObject({ status: 409, body: { error: { code: 'schedule_invalid', message: expect.stringContaining('broken.toml: period: expected') } } });
    expect(await hh.api('/api/schedules/broken/enable', { method: 'POST' })).toMatchObject({ status: 409, body: { error: { code: 'schedule_invalid' } } });
  });

  it('says the scheduler is unavailable when the runtime has none', async () => {
    const admin = await startAdminHarness();
    try {
      const r = await admin.call('/api/schedules');
      expect(r).toMatchObject({ status: 503, body: { error: { code: 'scheduler_unavailable' } } });
    } finally {
      await admin.close();
    }
  });
});
