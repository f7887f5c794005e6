/**
 * Tool subprocesses: the allowlist env policy hands a command no credential of the host (only shell
 * basics, a HOME in the workspace, named pass-throughs and the vault), and under bubblewrap a command can
 * write only its workspace and scratchpad, cannot see the data root or the host's home, and has no network
 * when the route says so. The sandbox tests need a working bwrap; where it cannot run they are skipped
 * with the probe's reason (CI installs Debian's bubblewrap).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CommandSandbox } from '../../../src/core/interfaces';
import { findBubblewrap, probeBubblewrap, type SandboxProbe } from '../../../src/core/environment/sandbox';
import { buildMcpServerEnv } from '../../../src/core/environment/subprocess-env';
import { call, fastHostEnv, makeEnv, removeTempDirs, tempDir, waitFor } from './helpers';

afterAll(removeTempDirs);

const SECRETS = {
  OPENAI_API_KEY: 'sk-canary-openai-0123456789',
  PENGUIN_ADMIN_TOKEN: 'canary-admin-token-0123456789abcdef',
  TELEGRAM_BOT_TOKEN: '123:canary-telegram',
  SLACK_BOT_TOKEN: 'xoxb-canary-slack',
  DISCORD_BOT_TOKEN: 'canary-discord',
  AWS_SECRET_ACCESS_KEY: 'canary-aws',
};

describe('allowlist env policy', () => {
  const { env, workspace } = makeEnv({
    hostEnv: fastHostEnv({ ...SECRETS, HTTPS_PROXY: 'http://proxy.local:3128', LC_ALL: 'C.UTF-8' }),
    vault: { GITHUB_TOKEN: 'vault-canary-github' },
    envPolicy: { mode: 'allowlist', passthrough: ['HTTPS_PROXY'] },
  });
  afterAll(() => env.dispose());

  test('a tool printing its environment shows no host credential, only the vault and the basics', async () => {
    const { out } = await call(env, 'exec_command', { description: 'env', cmd: 'env' });
    for (const v of Object.values(SECRETS)) expect(out.output).not.toContain(v);
    expect(out.output).not.toMatch(/^PENGUIN_/m);
    expect(out.output).toContain('GITHUB_TOKEN=vault-canary-github');
    expect(out.output).toContain('HTTPS_PROXY=http://proxy.local:3128');
    expect(out.output).toContain('LC_ALL=C.UTF-8');
    expect(out.output).toMatch(/^PATH=/m);
    expect(out.output).toContain(`HOME=${path.join(workspace, '.home')}`);
    expect(existsSync(path.join(workspace, '.home'))).toBe(true);
  });

  test('MCP stdio servers get the same base, never the vault', () => {
    const e = buildMcpServerEnv({ ...SECRETS, PATH: '/usr/bin' }, { SERVER_KEY: 'mine' }, { mode: 'allowlist' }, '/w');
    expect(e).toMatchObject({ PATH: '/usr/bin', HOME: '/w/.home', SERVER_KEY: 'mine' });
    for (const k of Object.keys(SECRETS)) expect(e[k]).toBeUndefined();
  });

  test('the inherit policy (PenguinHarness) keeps the host env minus the server variables', async () => {
    const inherit = makeEnv({ hostEnv: fastHostEnv({ OPENAI_API_KEY: SECRETS.OPENAI_API_KEY, PORT: '9' }) });
    const { out } = await call(inherit.env, 'exec_command', { description: 'env', cmd: 'env' });
    await inherit.env.dispose();
    expect(out.output).toContain(SECRETS.OPENAI_API_KEY);
    expect(out.output).not.toMatch(/^PORT=/m);
  });
});

let probe: SandboxProbe = { ok: false, reason: 'not probed' };
beforeAll(async () => {
  probe = await probeBubblewrap(findBubblewrap());
  if (!probe.ok) process.stdout.write(`sandbox tests skipped: ${probe.reason}\n`);
});
const sandboxed = (name: string, fn: () => Promise<void>) =>
  test(name, async () => {
    if (!probe.ok) return;
    await fn();
  });

describe('bubblewrap sandbox', () => {
  /** A host with a home holding a key, and a data root holding the workspace, as the gateway lays it out. */
  function world(network = false, scratchpadMade = true) {
    const hostHome = tempDir('penv-hosthome-');
    writeFileSync(path.join(hostHome, 'id_rsa'), 'HOST-PRIVATE-KEY');
    const root = tempDir('penv-sbroot-');
    const workspace = path.join(root, 'p', 'agents', 'a', 'workspaces', 'tmp-1');
    const scratchpad = path.join(root, 'p', 'agents', 'a', 'scratchpad', 's1');
    mkdirSync(workspace, { recursive: true });
    if (scratchpadMade) mkdirSync(scratchpad, { recursive: true });
    writeFileSync(path.join(root, 'gateway.db'), 'SQLITE');
    const sandbox = (): CommandSandbox => ({
      kind: 'bubblewrap', binary: (probe as { binary: string }).binary, network, writable: [workspace, scratchpad], readonly: [], hidden: [root],
    });
    const made = makeEnv({
      workspace, scratchpad, sandbox, hostEnv: fastHostEnv({ HOME: hostHome, ...SECRETS }), envPolicy: { mode: 'allowlist' },
    });
    return { ...made, hostHome, root };
  }

  sandboxed('writes outside the workspace fail; inside they land on the host', async () => {
    const w = world();
    const outside = path.join(tempDir('penv-outside-'), 'pwned');
    const { out } = await call(w.env, 'exec_command', { description: 'write', cmd: `echo x > ${outside}; echo ok > inside.txt; touch /usr/pwned` });
    await w.env.dispose();
    expect(existsSync(outside)).toBe(false);
    expect(existsSync('/usr/pwned')).toBe(false);
    expect(readFileSync(path.join(w.workspace, 'inside.txt'), 'utf8')).toBe('ok\n');
    expect(out.output).toMatch(/No such file|Read-only file system|Permission denied/);
  });

  sandboxed('a new session\'s first command binds a scratchpad the Environment makes for it', async () => {
    const w = world(false, false);
    expect(existsSync(w.scratchpad!)).toBe(false);
    const { out } = await call(w.env, 'exec_command', { description: 'plan', cmd: `echo step > ${path.join(w.scratchpad!, 'PLAN.md')}; echo rc=$?` });
    await w.env.dispose();
    expect(out.output).toContain('rc=0');
    expect(readFileSync(path.join(w.scratchpad!, 'PLAN.md'), 'utf8')).toBe('step\n');
  });

  sandboxed('the data root and the host home are invisible', async () => {
    const w = world();
    const { out } = await call(w.env, 'exec_command', {
      description: 'look', cmd: `ls ${w.root}; cat ${path.join(w.root, 'gateway.db')}; cat ${path.join(w.hostHome, 'id_rsa')}; find ${w.root} -name gateway.db -delete; echo done`,
    });
    await w.env.dispose();
    expect(out.output).not.toMatch(/SQLITE|HOST-PRIVATE-KEY|gateway\.db\n/);
    expect(existsSync(path.join(w.root, 'gateway.db'))).toBe(true);
    expect(out.output).toContain('done');
  });

  sandboxed('x=rm; $x -rf ~ and the host home leaves the home intact (allow-all cannot hurt the host)', async () => {
    const w = world();
    const { out } = await call(w.env, 'exec_command', { description: 'wipe', cmd: `x=rm; $x -rf ~ ${w.hostHome} /etc/hostname 2>&1; echo rc=$?` });
    await w.env.dispose();
    expect(readFileSync(path.join(w.hostHome, 'id_rsa'), 'utf8')).toBe('HOST-PRIVATE-KEY');
    expect(existsSync('/etc/hostname') || !existsSync('/etc')).toBe(true);
    expect(out.output).toContain('rc=');
  });

  sandboxed('background commands run in the same sandbox', async () => {
    const w = world();
    const outside = path.join(tempDir('penv-outside-'), 'bg');
    const { out } = await call(w.env, 'exec_command', { description: 'bg', cmd: `echo x > ${outside}; echo ok > bg.txt`, run_in_background: true });
    expect(out.output).toMatch(/process_id/);
    expect(await waitFor(() => existsSync(path.join(w.workspace, 'bg.txt')))).toBe(true);
    await w.env.dispose();
    expect(existsSync(outside)).toBe(false);
  });

  sandboxed('input_command and kill_command reach a sandboxed process', async () => {
    const w = world();
    const first = await call(w.env, 'exec_command', { description: 'wait', cmd: 'read x; echo got:$x; sleep 30', yield_time_ms: 300 });
    const id = /process_id (proc-[0-9a-f]+)/.exec(first.out.output)![1];
    const fed = await call(w.env, 'input_command', { description: 'feed', process_id: id, chars: 'hello\n', yield_time_ms: 500 });
    expect(fed.out.output).toContain('got:hello');
    const killed = await call(w.env, 'kill_command', { description: 'stop', process_id: id });
    expect(killed.out.stop_reason).toBe('completed');
    await w.env.dispose();
  });

  sandboxed('network follows the route: off means no connection even to loopback', async () => {
    const server = http.createServer((_q, r) => r.end('pong'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const probeCmd = `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected) 2>&1 || echo refused`;
    try {
      const off = world(false);
      const a = await call(off.env, 'exec_command', { description: 'net', cmd: probeCmd });
      await off.env.dispose();
      expect(a.out.output).toContain('refused');
      const on = world(true);
      const b = await call(on.env, 'exec_command', { description: 'net', cmd: probeCmd });
      await on.env.dispose();
      expect(b.out.output).toContain('connected');
    } finally {
      server.close();
    }
  });

  test('a required sandbox that cannot run refuses commands instead of running them unconfined', async () => {
    const marker = path.join(tempDir('penv-refuse-'), 'ran');
    const { env } = makeEnv({ sandbox: () => ({ kind: 'refuse', reason: 'bubblewrap is required (tools.sandbox) but not installed' }) });
    const { out } = await call(env, 'exec_command', { description: 'x', cmd: `touch ${marker}` });
    await env.dispose();
    expect(out.stop_reason).toBe('failed');
    expect(out.output).toContain('bubblewrap is required');
    expect(existsSync(marker)).toBe(false);
  });
});
