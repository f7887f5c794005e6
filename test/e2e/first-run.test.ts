/**
 * The first start with nothing configured (built CLI, empty PENGUIN_HOME, no model, no platform, no admin
 * token). Off a terminal: stdout is JSON log records but for the one "listening on" line; the data root
 * is created private with the default project and agent (built-in skills installed), the database and a
 * 0600 admin-token file whose token opens the admin API and is printed nowhere; the records give the
 * dashboard URL, each adapter that is off with the variable that turns it on, and say plainly that no
 * model endpoint is configured. A second start generates nothing. On a terminal (a pty from `script`),
 * the token is shown once and the summary is a readable block.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertGatewayBuilt, GATEWAY_CLI, killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';

let dir: string;
beforeAll(() => assertGatewayBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-first-run-'));
});
afterEach(async () => {
  await killAllGateways();
  // The pty's gateway dies of the hang-up a moment after `script` exits: give its last writes that moment.
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

const home = () => join(dir, 'data');
const env = () => ({ PENGUIN_HOME: home(), PENGUIN_GATEWAY_PORT: '0' });

async function waitFor(read: () => string, re: RegExp, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (re.test(read())) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${what} in:\n${read()}`);
}

type LogRecord = { level: number; msg: string; [k: string]: unknown };
/** Every stdout line parsed; a line that is not JSON fails the test unless it is the "listening on" line. */
function records(gw: GatewayProcess): LogRecord[] {
  const lines = gw.stdout().split('\n').filter(Boolean);
  expect(lines.filter((l) => !l.startsWith('{'))).toEqual([`penguin-gateway listening on ${gw.url}`]);
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogRecord);
}

it('off a terminal: creates the data root, writes the token to a file, and logs what is off and why', async () => {
  const gw = await spawnGateway({ dir, env: env() });
  await waitFor(() => gw.stdout(), /discord is off/, 'summary');
  const logged = records(gw);
  const file = join(home(), 'admin-token');
  const token = readFileSync(file, 'utf8').trim();
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(gw.output()).not.toContain(token);

  expect(logged).toEqual(expect.arrayContaining([
    expect.objectContaining({ level: 40, file, msg: expect.stringContaining(`generated an admin token for the admin API and dashboard: it is in ${file}`) }),
    expect.objectContaining({ level: 30, dashboard: `${gw.url}/`, msg: `dashboard at ${gw.url}/ (log in with the admin token in ${file})` }),
    expect.objectContaining({ platform: 'telegram', msg: 'telegram is off: set TELEGRAM_BOT_TOKEN to enable it' }),
    expect.objectContaining({ platform: 'slack', msg: expect.stringMatching(/^slack is off: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN \(Socket Mode\) or SLACK_SIGNING_SECRET \(HTTP mode\)/) }),
    expect.objectContaining({ platform: 'discord', msg: 'discord is off: set DISCORD_BOT_TOKEN or DISCORD_TOKEN to enable it' }),
    expect.objectContaining({ level: 40, msg: expect.stringMatching(/^no model endpoint is configured \(.* has no API key\): the agent cannot answer$/), fix: expect.stringContaining('OPENAI_API_KEY') }),
  ]));

  expect(statSync(home()).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(existsSync(join(home(), 'gateway.db'))).toBe(true);
  expect(existsSync(join(home(), 'default_project', '.project_config.toml'))).toBe(true);
  for (const skill of ['chat-replies', 'safe-shell']) expect(existsSync(join(home(), 'default_project', 'agents', 'default_agent', 'agent_state', 'skills', skill))).toBe(true);
  expect((await fetch(`${gw.url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  expect((await fetch(`${gw.url}/`)).status).toBe(200);
  expect(await gw.stop()).toBe(0);

  const again = await spawnGateway({ dir, env: env() });
  await waitFor(() => again.stdout(), /discord is off/, 'summary');
  const second = records(again);
  expect(second.filter((r) => r.msg.includes('generated an admin token'))).toEqual([]);
  expect(second).toEqual(expect.arrayContaining([expect.objectContaining({ msg: expect.stringContaining('log in with the admin token from the first start') })]));
  expect(await again.stop()).toBe(0);
});

const scriptHere = existsSync('/usr/bin/script');
if (!scriptHere) console.warn('first start on a terminal skipped: /usr/bin/script (util-linux) is not installed');

(scriptHere ? it : it.skip)('on a terminal: shows the token once and the summary as text', async () => {
  // `script` gives the gateway a pty as stdout; the child leads its own group, so the group is ours to end.
  const child = spawn('script', ['-qfec', `'${process.execPath}' '${GATEWAY_CLI}' start`, '/dev/null'], {
    cwd: dir, detached: true, stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, SHELL: '/bin/sh', TERM: 'dumb', ...env() },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8').replace(/\r\n/g, '\n')));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await waitFor(() => out, /checks every part with a real call/, 'summary block');
    const token = /^ {4}([A-Za-z0-9_-]{43})$/m.exec(out)?.[1];
    expect(token).toBeDefined();
    expect(out.split(token!)).toHaveLength(2);
    expect(existsSync(join(home(), 'admin-token'))).toBe(false);
    const url = /listening on (http:\/\/\S+)/.exec(out)![1];
    expect(out).toContain(`penguin-gateway is running; its data is in ${home()}\n`);
    expect(out).toContain(`  dashboard  ${url}/ (log in with the admin token shown above)\n`);
    expect(out).toContain('  telegram   off: set TELEGRAM_BOT_TOKEN to enable it\n');
    expect(out).toContain('  discord    off: set DISCORD_BOT_TOKEN or DISCORD_TOKEN to enable it\n');
    expect(out).toMatch(/\n {2}model {6}no model endpoint is configured \(.*\): the agent cannot answer\n {13}→ set /);
    expect((await fetch(`${url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  } finally {
    // Ending `script` hangs up its pty, which ends the gateway on it.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
});
