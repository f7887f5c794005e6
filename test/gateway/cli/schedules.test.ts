/**
 * `penguin-gateway schedules list|run` and doctor's schedule lines against a temp PENGUIN_HOME: list shows
 * each routed agent's schedules with next fire and last run, invalid files with file and key; run queues a
 * manual run row the running gateway adopts (refused for unknown or invalid schedules, exit 1); doctor warns
 * about each invalid file and each deliver_to on a platform this config does not run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/gateway/store';
import { cliEnv, type CliEnv } from './helpers';

let c: CliEnv;
beforeEach(() => {
  c = cliEnv({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', PENGUIN_MODEL: 'm' });
  const dir = join(c.home, 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'standup.toml'), 'prompt = "p"\nenabled = true\nstart_at = 2026-01-01T00:00:00Z\ncron = "0 9 * * MON-FRI"\ntimezone = "Europe/Berlin"\ndeliver_to = "telegram:42"\n');
  writeFileSync(join(dir, 'weekly.toml'), 'prompt = "p"\nstart_at = 2026-01-01T00:00:00Z\nperiod = "7d"\n');
  writeFileSync(join(dir, 'broken.toml'), 'prompt = "p"\nstart_at = 2026-01-01T00:00:00Z\ndeliver_to = "slack:nope"\n');
});
afterEach(() => c.cleanup());

describe('schedules list', () => {
  it('lists every schedule with its next fire in its time zone, invalid ones with file and key', async () => {
    const r = await c.run(['schedules', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('default_project:default_agent:broken  INVALID, skipped');
    expect(lines[1]).toMatch(/^ {4}\/.+\/broken\.toml: deliver_to: expected slack:<team>:<channel>, discord:<guild>:<channel>, telegram:<chat>\[:<topic>\] or web:<conversation>, found string "slack:nope"/);
    expect(lines[2]).toMatch(/^default_project:default_agent:standup {2}cron "0 9 \* \* MON-FRI" \(Europe\/Berlin\) {2}next \w{3}, \d{1,2} \w{3} \d{4}, 09:00 \(Europe\/Berlin\) {2}→ telegram:42$/);
    expect(lines[3]).toBe('default_project:default_agent:weekly  every 7d from 2026-01-01T00:00:00.000Z  disabled  → web:schedule-weekly');
    expect(r.stdout).toMatch(/\n3 schedules, 1 invalid \(skipped by the gateway\)\.\n$/);
  });
});

describe('schedules run', () => {
  it('queues a manual run the gateway picks up, and says when none did yet', async () => {
    const r = await c.run(['schedules', 'run', 'weekly'], { pickupWaitMs: 0 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ queued run #1 \(manual\) queued of default_project:default_agent:weekly; the running gateway starts it within seconds\.\n/);
    expect(r.stdout).toMatch(/Not started yet: /);
    const store = openSqliteStore(join(c.home, 'gateway.db'));
    try {
      expect(await store.listScheduleRuns({})).toEqual([expect.objectContaining({ schedule_name: 'weekly', kind: 'manual', status: 'queued' })]);
    } finally {
      await store.close();
    }
    const list = await c.run(['schedules', 'list']);
    expect(list.stdout).toContain('    last: run #1 (manual) queued, slot ');
  });

  it('refuses unknown and invalid schedules, and a missing id', async () => {
    expect(await c.run(['schedules', 'run', 'nope'])).toMatchObject({ code: 1, stderr: expect.stringContaining('no schedule "nope"') });
    expect(await c.run(['schedules', 'run', 'default_project:default_agent:broken'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/broken is invalid and cannot run:\n.*broken\.toml: deliver_to: expected/) });
    expect((await c.run(['schedules', 'run'])).code).toBe(2);
    expect((await c.run(['schedules', 'frobnicate'])).code).toBe(2);
    expect((await c.run(['schedules', 'list', 'extra'])).code).toBe(2);
  });
});

describe('doctor', () => {
  it('warns about each invalid schedule file and each deliver_to on a platform this config does not run', async () => {
    const r = await c.run(['doctor', '--timeout', '200']);
    const line = (name: string) => r.stdout.split('\n').find((l) => l.slice(2).startsWith(`${name} `)) ?? '';
    expect(line('schedules')).toMatch(/^✓ schedules +3 files: 2 valid \(1 enabled\), 1 invalid$/);
    expect(line('schedule broken')).toMatch(/^! schedule broken +invalid, skipped: \/.+broken\.toml: deliver_to: expected /);
    expect(line('schedule standup')).toMatch(/^! schedule standup +deliver_to telegram:42: telegram is not configured \(no credentials\), so its runs fail$/);
  });
});
