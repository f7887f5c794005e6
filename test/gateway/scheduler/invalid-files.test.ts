/**
 * Invalid schedule files (issue 18): each reason — the state layer's and the gateway's own (deliver_to
 * form, a target routed to another agent, a workspace the route does not give) — is reported with the file
 * and the key path, in the scheduler's entries and in the log, and is skipped while the valid file next to
 * it keeps firing.
 */
import { iso, schedulerRig, type Rig } from './helpers';

const T0 = Date.UTC(2026, 5, 1, 9, 0, 0);
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const CONFIG = [
  'routes:',
  '  - match: { platform: telegram, chat: "-100777" }',
  '    agent: other_agent',
  '  - match: { platform: telegram, chat: "-100555" }',
  '    workspace_policy: fixed',
  '    workspace_path: /srv/work',
].join('\n');

const BASE = `prompt = "p"\nenabled = true\nstart_at = ${iso(T0)}\nperiod = "5m"\n`;

const REASONS: [string, string, string, RegExp][] = [
  ['a TOML syntax error', 'prompt = \n', '(file)', /valid TOML/],
  ['a missing prompt', `start_at = ${iso(T0)}\n`, 'prompt', /a string/],
  ['a missing start_at', 'prompt = "p"\n', 'start_at', /ISO 8601 instant/],
  ['a period under five minutes', BASE.replace('"5m"', '"1m"'), 'period', /at least 5 minutes/],
  ['end_at before start_at', `${BASE}end_at = 2026-05-01T00:00:00Z\n`, 'end_at', /later than start_at/],
  ['cron next to period', `${BASE}cron = "0 9 * * *"\n`, 'cron', /either `period` or `cron`/],
  ['an invalid cron', `prompt = "p"\nstart_at = ${iso(T0)}\ncron = "0 25 * * *"\n`, 'cron', /a valid cron expression/],
  ['a cron more often than every five minutes', `prompt = "p"\nstart_at = ${iso(T0)}\ncron = "*/2 * * * *"\n`, 'cron', /at least 5 minutes apart/],
  ['an unknown time zone', `prompt = "p"\nstart_at = ${iso(T0)}\ncron = "0 9 * * *"\ntimezone = "Europe/Atlantis"\n`, 'timezone', /IANA time zone/],
  ['a time zone without cron', `${BASE}timezone = "Europe/Berlin"\n`, 'timezone', /a `cron` key/],
  ['provider without model_id', `${BASE}provider = "deepseek"\n`, 'model_id', /both or neither/],
  ['session_id with a workspace', `${BASE}session_id = "session-2026-01-01-00-00-00-aaaaaaaa"\nworkspace = "/srv/work"\n`, 'workspace', /no workspace/],
  ['an unknown key', `${BASE}repeat = "daily"\n`, 'repeat', /a known key/],
  ['an unknown approval_mode', `${BASE}approval_mode = "yolo"\n`, 'approval_mode', /one of "allow-all"/],
  ['a bad max_duration', `${BASE}max_duration = "forever"\n`, 'max_duration', /text matching/],
  ['a deliver_to on an unknown platform', `${BASE}deliver_to = "matrix:room"\n`, 'deliver_to', /slack:<team>:<channel>, discord:<guild>:<channel>, telegram:<chat>\[:<topic>\] or web:<conversation>.*unknown platform "matrix"/],
  ['a malformed slack deliver_to', `${BASE}deliver_to = "slack:T1"\n`, 'deliver_to', /slack targets are slack:<team>:<channel>/],
  ['a malformed discord deliver_to', `${BASE}deliver_to = "discord:guild:chan"\n`, 'deliver_to', /discord guild "guild" is not a Discord id/],
  ['a deliver_to routed to another agent', `${BASE}deliver_to = "telegram:-100777"\n`, 'deliver_to', /routed to this schedule's agent default_project\/default_agent.*route "telegram:-100777" runs default_project\/other_agent/],
  ['a workspace on a temp-workspace route', `${BASE}deliver_to = "telegram:42"\nworkspace = "/srv/work"\n`, 'workspace', /no workspace: route "default" gives each session a temporary one/],
  ['a workspace outside the route\'s path', `${BASE}deliver_to = "telegram:-100555"\nworkspace = "/etc"\n`, 'workspace', /inside route "telegram:-100555"'s workspace_path \/srv\/work/],
];

describe('invalid schedule files', () => {
  it.each(REASONS)('reports %s with its key path and skips the file', async (_what, toml, path, expected) => {
    rig = await schedulerRig({ start: T0, configYaml: CONFIG });
    await rig.write('bad', toml);
    await rig.write('good', BASE);
    await rig.scheduler.start();
    const bad = rig.scheduler.find('bad')!;
    expect(bad.entry.def).toBeUndefined();
    const issue = bad.entry.error!.issues.find((i) => i.path === path || (path === '(file)' && i.path === ''));
    expect(issue).toBeDefined();
    expect(`${issue!.expected} ${issue!.found}`).toMatch(expected);
    expect(bad.entry.error!.message).toContain(`${bad.entry.file}: ${path}: expected`);
    expect(rig.log.some((l) => l.includes('schedule file invalid, skipped') && l.includes(JSON.stringify(`${bad.entry.file}: ${path}: expected`).slice(1, -1)))).toBe(true);
    expect(rig.executor.fires.map((f) => f.req.entry.ref.schedule_name)).toEqual(['good']);
    expect(await rig.store.listScheduleRuns({ schedule_name: 'bad' })).toEqual([]);
    expect(await rig.scheduler.runNow('bad')).toMatchObject({ ok: false, code: 'invalid', message: expect.stringContaining(`${path}: expected`) });
  });

  it('accepts what the gateway can deliver: each platform form, a workspace inside a fixed route, a bound session', async () => {
    rig = await schedulerRig({ start: T0, configYaml: CONFIG });
    await rig.write('slack', `${BASE}deliver_to = "slack:T0123ABCD:C0456EFGH"\n`);
    await rig.write('discord', `${BASE}deliver_to = "discord:112233:445566"\n`);
    await rig.write('topic', `${BASE}deliver_to = "telegram:-100555:7"\nworkspace = "/srv/work/reports"\n`);
    await rig.write('web', `${BASE}deliver_to = "web:ops"\n`);
    await rig.write('bound', `${BASE}session_id = "session-2026-01-01-00-00-00-aaaaaaaa"\n`);
    await rig.write('plain', BASE);
    await rig.scheduler.start();
    expect(rig.scheduler.entries().map((t) => [t.entry.ref.schedule_name, t.entry.error?.message ?? 'ok'])).toEqual(
      ['bound', 'discord', 'plain', 'slack', 'topic', 'web'].map((n) => [n, 'ok']),
    );
    expect(rig.scheduler.find('plain')!.entry.target).toEqual({ platform: 'web', conversation: 'schedule-plain' });
    expect(rig.scheduler.find('bound')!.entry.target).toBeUndefined();
  });

  it('says once when a file turns invalid and again when it is fixed, not at every look', async () => {
    rig = await schedulerRig({ start: T0 });
    await rig.write('flip', BASE);
    await rig.scheduler.start();
    await rig.write('flip', `${BASE}period = "oops"\n`);
    await rig.scheduler.reload();
    await rig.scheduler.reload();
    expect(rig.log.filter((l) => l.includes('schedule file invalid'))).toHaveLength(1);
    await rig.write('flip', BASE);
    await rig.scheduler.reload();
    expect(rig.log.filter((l) => l.includes('schedule file valid again'))).toHaveLength(1);
  });
});
