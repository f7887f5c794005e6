/**
 * exec_command with real processes: exit facts, signals, workdir, shell override, the foreground window,
 * backgrounding, run_in_background reports, abort killing the whole group, truncation with archive.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BackgroundNotice } from '../../../src/core/interfaces';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { call, fastHostEnv, isAlive, makeEnv, removeTempDirs, tempDir, waitFor } from './helpers';

const disposers: (() => Promise<void>)[] = [];
function setup(o: Parameters<typeof makeEnv>[0] = {}) {
  const made = makeEnv(o);
  disposers.push(() => made.env.dispose());
  return made;
}
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});
afterAll(removeTempDirs);

const exec = (args: Record<string, unknown>) => ({ description: 'test', ...args });
const procId = (text: string) => /proc-[0-9a-f]{8}/.exec(text)?.[0] ?? '';
const withTool = (name: string, patch: Record<string, unknown>) =>
  DEFAULT_BUILTIN_TOOLS.map((t) => (t.name === name ? { ...t, ...patch } : t));

test('exit 0 completes with merged stdout and stderr', async () => {
  const { env } = setup();
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo out; echo err >&2' }));
  expect(out.stop_reason).toBe('completed');
  expect(out.output).toBe('out\nerr\n');
});

test('a non-zero exit fails with the exit code note', async () => {
  const { env } = setup();
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo partial; exit 7' }));
  expect(out).toMatchObject({ output: 'partial\n[exit code: 7]', stop_reason: 'failed' });
});

test('death by signal is reported', async () => {
  const { env } = setup();
  const { out } = await call(env, 'exec_command', exec({ cmd: 'kill -TERM $$' }));
  expect(out).toMatchObject({ output: '[terminated by signal SIGTERM]', stop_reason: 'failed' });
});

test('no output at all gives [no output]', async () => {
  const { env } = setup();
  const { out } = await call(env, 'exec_command', exec({ cmd: 'true' }));
  expect(out).toMatchObject({ output: '[no output]', stop_reason: 'completed' });
});

test('workdir is relative to the Workspace; a missing one fails before spawning', async () => {
  const { env, workspace } = setup();
  mkdirSync(path.join(workspace, 'sub'));
  const ok = await call(env, 'exec_command', exec({ cmd: 'pwd', workdir: 'sub' }));
  expect(ok.out.output.trim()).toBe(path.join(workspace, 'sub'));
  const bad = await call(env, 'exec_command', exec({ cmd: 'pwd', workdir: 'nope' }));
  expect(bad.out.stop_reason).toBe('failed');
  expect(bad.out.output).toContain('[spawn error: workdir is not a directory');
});

test('PENGUIN_SHELL replaces bash and receives -lc <cmd>', async () => {
  const dir = tempDir();
  const shell = path.join(dir, 'myshell');
  writeFileSync(shell, '#!/bin/sh\necho "shell:$1:$2"\n');
  chmodSync(shell, 0o755);
  const { env } = setup({ hostEnv: fastHostEnv({ PENGUIN_SHELL: shell }) });
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo hi' }));
  expect(out.output).toBe('shell:-lc:echo hi\n');
});

test('a shell that cannot be started is a spawn error', async () => {
  const { env } = setup({ hostEnv: fastHostEnv({ PENGUIN_SHELL: '/nonexistent/shell' }) });
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo hi' }));
  expect(out.stop_reason).toBe('failed');
  expect(out.output).toMatch(/^\[spawn error: .*ENOENT.*\]$/);
});

test('the call returns when the foreground process exits, even if a background child holds the pipe', async () => {
  const { env, workspace } = setup();
  const pidFile = path.join(workspace, 'bg.pid');
  const { out } = await call(env, 'exec_command', exec({ cmd: `sleep 30 & echo $! > ${pidFile}; echo done`, yield_time_ms: 20_000 }));
  expect(out).toMatchObject({ output: 'done\n', stop_reason: 'completed' });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  process.kill(pid, 'SIGKILL');
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
});

test('a command still running at the end of the window is backgrounded and can be polled to its exit', async () => {
  const { env } = setup();
  const first = await call(env, 'exec_command', exec({ cmd: 'echo start; sleep 0.8; echo end; exit 3', yield_time_ms: 300 }));
  expect(first.out.stop_reason).toBe('completed');
  expect(first.out.output).toMatch(/^start\n\[process running with process_id proc-[0-9a-f]{8}; /);
  const id = procId(first.out.output);
  expect(env.listBackgroundCommands().map((c) => c.processId)).toEqual([id]);
  const poll = await call(env, 'input_command', { description: 'poll', process_id: id, yield_time_ms: 5000 });
  expect(poll.out).toMatchObject({ output: 'end\n[exit code: 3]', stop_reason: 'failed' });
  expect(env.listBackgroundCommands()).toEqual([]);
});

test('yield_time_ms is clamped below the tool timeout, so a long wait backgrounds instead of timing out', async () => {
  const { env } = setup({ tools: withTool('exec_command', { timeoutMs: 1_300 }) });
  const { out } = await call(env, 'exec_command', exec({ cmd: 'sleep 5', yield_time_ms: 100_000 }));
  expect(out.stop_reason).toBe('completed');
  expect(out.output).toContain('[process running with process_id');
});

test('run_in_background returns the id at once and reports completion later', async () => {
  const { env } = setup();
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo working; sleep 0.2; echo finished', run_in_background: true }));
  expect(out.output).toMatch(/^\[process started in background with process_id proc-[0-9a-f]{8}; /);
  const id = procId(out.output);
  expect(await waitFor(() => notices.length === 1)).toBe(true);
  expect(notices[0]).toEqual({ kind: 'command', id, status: 'completed', label: 'echo working; sleep 0.2; echo finished', detail: 'working\nfinished\n[exit code: 0]' });
});

test('a failing background command reports failed; a killed one reports nothing', async () => {
  const { env } = setup();
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  await call(env, 'exec_command', exec({ cmd: 'exit 4', run_in_background: true }));
  const killed = await call(env, 'exec_command', exec({ cmd: 'sleep 30', run_in_background: true }));
  await call(env, 'kill_command', { description: 'stop', process_id: procId(killed.out.output) });
  expect(await waitFor(() => notices.length >= 1)).toBe(true);
  await new Promise((r) => setTimeout(r, 200));
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatchObject({ status: 'failed', detail: '[exit code: 4]' });
});

test('notices that arrive before anyone subscribes are delivered to the first subscriber', async () => {
  const { env } = setup();
  await call(env, 'exec_command', exec({ cmd: 'echo early', run_in_background: true }));
  await waitFor(() => env.listBackgroundCommands().every((c) => !c.running));
  await new Promise((r) => setTimeout(r, 50));
  const got: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => got.push(n));
  expect(got.map((n) => n.detail)).toEqual(['early\n[exit code: 0]']);
});

test('an abort in the window kills the whole process group', async () => {
  const { env, workspace } = setup();
  const pidFile = path.join(workspace, 'child.pid');
  const ac = new AbortController();
  const running = call(env, 'exec_command', exec({ cmd: `sleep 30 & echo $! > ${pidFile}; echo started; wait`, yield_time_ms: 20_000 }), { signal: ac.signal });
  expect(await waitFor(() => {
    try {
      return readFileSync(pidFile, 'utf8').trim() !== '';
    } catch {
      return false;
    }
  })).toBe(true);
  const childPid = Number(readFileSync(pidFile, 'utf8'));
  expect(isAlive(childPid)).toBe(true);
  ac.abort();
  const { out } = await running;
  expect(out.stop_reason).toBe('aborted');
  expect(out.output).toMatch(/^started\n\[terminated by signal SIGTERM\]\n\[interrupted: tool aborted by user\]$/);
  expect(await waitFor(() => !isAlive(childPid))).toBe(true);
  expect(env.listBackgroundCommands()).toEqual([]);
});

test('long output is head-truncated and archived in full', async () => {
  const { env, scratchpad } = setup({ tools: withTool('exec_command', { maxOutputLength: 1000 }) });
  const { out } = await call(env, 'exec_command', exec({ cmd: 'seq 1 20000' }));
  const full = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
  expect(out.output.slice(0, 1000)).toBe(full.slice(0, 1000));
  const notes = out.output.slice(1000).split('\n').filter(Boolean);
  expect(notes[0]).toBe('[output truncated: exceeded 1000 chars]');
  const file = /^\[output archived: (.+)\]$/.exec(notes[1])![1];
  expect(file.startsWith(path.join(scratchpad!, 'truncated-tool-output'))).toBe(true);
  expect(readFileSync(file, 'utf8')).toBe(full);
});

test('subprocesses get the vault and forced variables but not the dropped host variables', async () => {
  const { env } = setup({ vault: { MY_TOKEN: 's3cret', TERM: 'xterm' }, hostEnv: fastHostEnv({ PORT: '8080', PENGUIN_SEED_ADMIN_PASSWORD: 'pw', KEEP_ME: 'yes' }) });
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo "$MY_TOKEN|${PORT-unset}|${PENGUIN_SEED_ADMIN_PASSWORD-unset}|$KEEP_ME|$TERM|$GIT_PAGER|$NO_COLOR"' }));
  expect(out.output).toBe('s3cret|unset|unset|yes|dumb|cat|1\n');
});

test('the subprocess environment is built at the first tool call, not when the session opens', async () => {
  let enumerated = 0;
  const hostEnv = new Proxy(fastHostEnv({ KEEP_ME: 'yes' }), {
    ownKeys(target) {
      enumerated++;
      return Reflect.ownKeys(target);
    },
  });
  const { env } = setup({ hostEnv });
  await env.listTools();
  expect(enumerated).toBe(0);
  const { out } = await call(env, 'exec_command', exec({ cmd: 'echo "$KEEP_ME"' }));
  expect(out.output).toBe('yes\n');
  expect(enumerated).toBe(1);
  await call(env, 'exec_command', exec({ cmd: 'true' }));
  expect(enumerated).toBe(1);
});

test('dispose kills background process groups', async () => {
  const { env, workspace } = setup();
  const pidFile = path.join(workspace, 'd.pid');
  await call(env, 'exec_command', exec({ cmd: `sleep 30 & echo $! > ${pidFile}; wait`, run_in_background: true }));
  expect(await waitFor(() => {
    try {
      return readFileSync(pidFile, 'utf8').trim() !== '';
    } catch {
      return false;
    }
  })).toBe(true);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await env.dispose();
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
  const after = await call(env, 'exec_command', exec({ cmd: 'echo hi' }));
  expect(after.out.stop_reason).toBe('failed');
});
