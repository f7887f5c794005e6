import { join } from 'node:path';
import { writeFile, mkdir } from 'node:fs/promises';
import { durationToMs, listScheduleNames, loadSchedules, parseScheduleFile, periodToMs } from '../../../src/core/state/schedules';
import { formatScheduledTask, parseScheduledTask } from '../../../src/core/state/scheduled-task';
import { cleanupTempDirs, FIXTURE_AGENT_STATE, tempDir } from './helpers';

afterAll(cleanupTempDirs);
const FILE = '/x/schedule/job.toml';

function errorOf(toml: string, name = 'job') {
  const r = parseScheduleFile(name, toml, FILE);
  if (r.ok) throw new Error('expected an error');
  return r.error;
}
const BASE = 'prompt = "p"\nstart_at = 2026-08-01T09:00:00Z\n';

describe('schedule files', () => {
  it('loads the fixture schedules', async () => {
    const dir = join(FIXTURE_AGENT_STATE, 'schedule');
    expect(await listScheduleNames(dir)).toEqual(['daily-report', 'ping']);
    const { valid, invalid } = await loadSchedules(dir);
    expect(invalid).toEqual([]);
    expect(valid[0]).toEqual({
      name: 'daily-report',
      file: join(dir, 'daily-report.toml'),
      prompt: "Post a summary of yesterday's merged pull requests",
      enabled: true,
      startAt: new Date('2026-08-01T09:00:00Z'),
      period: '1d',
      periodMs: 86_400_000,
      endAt: new Date('2026-12-31T09:00:00Z'),
      workspace: '/srv/work/repo',
      provider: 'deepseek',
      modelId: 'deepseek-v4-flash',
    });
    expect(valid[1]).toMatchObject({ name: 'ping', enabled: false, startAt: new Date('2026-09-01T10:30:00Z'), sessionId: 'session-2026-08-20-10-11-12-a1b2c3d4' });
    expect(valid[1].periodMs).toBeUndefined();
  });

  it('accepts the gateway extensions cron + timezone + deliver_to', () => {
    const r = parseScheduleFile('standup', `${BASE}enabled = true\ncron = "0 9 * * MON-FRI"\ntimezone = "Europe/Berlin"\ndeliver_to = "slack:T1:C2"\n`, FILE);
    expect(r.ok && r.value).toMatchObject({ cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', deliverTo: 'slack:T1:C2', enabled: true });
  });

  it('accepts approval_mode and max_duration', () => {
    const r = parseScheduleFile('digest', `${BASE}approval_mode = "deny-all"\nmax_duration = "90s"\n`, FILE);
    expect(r.ok && r.value).toMatchObject({ approvalMode: 'deny-all', maxDuration: '90s', maxDurationMs: 90_000 });
    expect(durationToMs('2h')).toBe(7_200_000);
    expect(durationToMs('1d')).toBe(86_400_000);
    expect(durationToMs('1w')).toBeUndefined();
  });

  it('writes and reads the [scheduled_task] text', () => {
    const text = formatScheduledTask({ schedule: 'digest', firedAt: '2026-08-01T09:00:00.000Z', prompt: 'Summarise\nthe open PRs' });
    expect(text).toBe('[scheduled_task]\nschedule: digest\nfired_at: 2026-08-01T09:00:00.000Z\n\nSummarise\nthe open PRs\n[/scheduled_task]');
    expect(parseScheduledTask(text)).toEqual({ schedule: 'digest', firedAt: '2026-08-01T09:00:00.000Z', prompt: 'Summarise\nthe open PRs' });
    expect(parseScheduledTask('<scheduled_task>\nschedule: x\nfired_at: t\n\np\n</scheduled_task>')).toEqual({ schedule: 'x', firedAt: 't', prompt: 'p' });
    expect(parseScheduledTask('hello [scheduled_task]\nschedule: x\nfired_at: t\n[/scheduled_task]')).toBeUndefined();
  });

  it('parses periods', () => {
    expect(periodToMs('5m')).toBe(300_000);
    expect(periodToMs('12h')).toBe(43_200_000);
    expect(periodToMs('7d')).toBe(604_800_000);
    expect(periodToMs('1w')).toBeUndefined();
  });

  it.each([
    ['a missing prompt', 'start_at = 2026-08-01T09:00:00Z\n', 'prompt', /a string/],
    ['a missing start_at', 'prompt = "p"\n', 'start_at', /ISO 8601 instant/],
    ['a local start_at', 'prompt = "p"\nstart_at = 2026-08-01T09:00:00\n', 'start_at', /with a zone/],
    ['a date-only start_at', 'prompt = "p"\nstart_at = 2026-08-01\n', 'start_at', /ISO 8601 instant/],
    ['a non-ISO start_at string', 'prompt = "p"\nstart_at = "tomorrow"\n', 'start_at', /ISO 8601 instant/],
    ['a malformed period', `${BASE}period = "1 hour"\n`, 'period', /text matching/],
    ['a period under 5 minutes', `${BASE}period = "4m"\n`, 'period', /at least 5 minutes/],
    ['end_at before start_at', `${BASE}end_at = 2026-08-01T08:00:00Z\n`, 'end_at', /later than start_at \(2026-08-01T09:00:00.000Z\)/],
    ['a lone model_id', `${BASE}model_id = "m"\n`, 'provider', /both or neither/],
    ['a lone provider', `${BASE}provider = "p"\n`, 'model_id', /both or neither/],
    ['session_id with workspace', `${BASE}session_id = "s"\nworkspace = "/w"\n`, 'workspace', /no workspace\/provider\/model_id when session_id is set/],
    ['an unknown key', `${BASE}repeat = true\n`, 'repeat', /a known key/],
    ['a wrong enabled type', `${BASE}enabled = "yes"\n`, 'enabled', /a boolean/],
    ['an invalid cron', `${BASE}cron = "61 * * * *"\n`, 'cron', /a valid cron expression/],
    ['a too frequent cron', `${BASE}cron = "* * * * *"\n`, 'cron', /less than 5 minutes apart/],
    ['cron together with period', `${BASE}cron = "0 9 * * *"\nperiod = "1d"\n`, 'cron', /either `period` or `cron`/],
    ['a timezone without cron', `${BASE}timezone = "UTC"\n`, 'timezone', /a `cron` key/],
    ['an unknown timezone', `${BASE}cron = "0 9 * * *"\ntimezone = "Mars/Base"\n`, 'timezone', /IANA time zone/],
    ['a bad deliver_to', `${BASE}deliver_to = "somewhere"\n`, 'deliver_to', /text matching/],
    ['an unknown approval_mode', `${BASE}approval_mode = "sometimes"\n`, 'approval_mode', /one of "allow-all", "deny-all", "read-only", "always-ask"/],
    ['a malformed max_duration', `${BASE}max_duration = "an hour"\n`, 'max_duration', /text matching/],
    ['a zero max_duration', `${BASE}max_duration = "0m"\n`, 'max_duration', /at least 1 second/],
  ])('reports %s with its key path', (_what, toml, path, expected) => {
    const e = errorOf(toml);
    const issue = e.issues.find((i) => i.path === path);
    expect(issue).toBeDefined();
    expect(issue!.expected).toMatch(expected);
    expect(e.message).toContain(`${FILE}: ${path}: expected`);
  });

  it('rejects a file name outside the id rule', () => {
    expect(errorOf(BASE, 'daily report').issues[0].found).toBe('name "daily report"');
  });

  it('judges each file on its own', async () => {
    const dir = join(await tempDir(), 'schedule');
    await mkdir(dir);
    await writeFile(join(dir, 'good.toml'), BASE);
    await writeFile(join(dir, 'bad.toml'), 'prompt = \n');
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const r = await loadSchedules(dir);
    expect(r.valid.map((s) => s.name)).toEqual(['good']);
    expect(r.invalid.map((s) => [s.name, s.error.kind])).toEqual([['bad', 'syntax']]);
    expect(await listScheduleNames(join(dir, 'missing'))).toEqual([]);
  });
});
