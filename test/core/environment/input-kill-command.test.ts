/**
 * input_command / kill_command with real processes (stdin, Ctrl-C, polls, exit facts, kill escalation,
 * unread buffer cap) and the command-session manager's caps and idle sweep.
 */
import type { BackgroundNotice } from '../../../src/core/interfaces';
import { CommandSessionManager } from '../../../src/core/environment/tools/command-sessions';
import { BACKGROUND_IDLE_TTL_MS } from '../../../src/core/environment/limits';
import { call, fastHostEnv, isAlive, makeEnv, removeTempDirs, waitFor } from './helpers';

const disposers: (() => Promise<void>)[] = [];
function setup() {
  const made = makeEnv();
  disposers.push(() => made.env.dispose());
  return made;
}
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});
afterAll(removeTempDirs);

const procId = (text: string) => /proc-[0-9a-f]{8}/.exec(text)?.[0] ?? '';

async function background(env: ReturnType<typeof setup>['env'], cmd: string) {
  const { out } = await call(env, 'exec_command', { description: 'start', cmd, yield_time_ms: 250 });
  const id = procId(out.output);
  expect(id).not.toBe('');
  return { id, first: out.output };
}

test('chars go to stdin and the reply streams back; the process stays managed', async () => {
  const { env } = setup();
  const { id } = await background(env, 'while read line; do echo "got:$line"; done');
  const r = await call(env, 'input_command', { description: 'type', process_id: id, chars: 'hello\n', yield_time_ms: 500 });
  expect(r.out.stop_reason).toBe('completed');
  expect(r.out.output).toMatch(/^got:hello\n\[process running with process_id /);
  const r2 = await call(env, 'input_command', { description: 'eof', process_id: id, chars: 'bye\n', yield_time_ms: 500 });
  expect(r2.out.output.startsWith('got:bye\n')).toBe(true);
});

test('a lone \\u0003 sends SIGINT to the group; the exit facts follow and the entry is removed', async () => {
  const { env } = setup();
  const { id } = await background(env, "trap 'echo interrupted; exit 130' INT; echo ready; while :; do sleep 0.05; done");
  const r = await call(env, 'input_command', { description: 'ctrl-c', process_id: id, chars: '\u0003', yield_time_ms: 3000 });
  expect(r.out.stop_reason).toBe('failed');
  expect(r.out.output).toBe('interrupted\n[exit code: 130]');
  const again = await call(env, 'input_command', { description: 'poll', process_id: id });
  expect(again.out.stop_reason).toBe('failed');
  expect(again.out.output).toContain(`Unknown process_id: ${id}`);
});

test('Ctrl-C mixed with other text is refused', async () => {
  const { env } = setup();
  const { id } = await background(env, 'cat');
  const r = await call(env, 'input_command', { description: 'mixed', process_id: id, chars: 'abc\u0003' });
  expect(r.out.stop_reason).toBe('failed');
  expect(r.out.output).toContain('must be sent alone');
  expect(env.listBackgroundCommands()[0]).toMatchObject({ processId: id, running: true });
});

test('an empty poll waits for output and the exit', async () => {
  const { env } = setup();
  const { id } = await background(env, 'sleep 0.4; echo late; exit 0');
  const r = await call(env, 'input_command', { description: 'poll', process_id: id, yield_time_ms: 5000 });
  expect(r.out).toMatchObject({ output: 'late\n[exit code: 0]', stop_reason: 'completed' });
});

test('an abort cancels only the poll; the command keeps running', async () => {
  const { env } = setup();
  const { id } = await background(env, 'sleep 30');
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const r = await call(env, 'input_command', { description: 'poll', process_id: id, yield_time_ms: 10_000 }, { signal: ac.signal });
  expect(r.out.stop_reason).toBe('aborted');
  expect(r.out.output).toContain('[interrupted: tool aborted by user]');
  const info = env.listBackgroundCommands().find((c) => c.processId === id)!;
  expect(info.running).toBe(true);
  expect(isAlive(info.pid!)).toBe(true);
});

test('input to a process that already exited is not delivered; its remaining output and exit facts are', async () => {
  const { env } = setup();
  const { id } = await background(env, 'sleep 0.3; echo bye; exit 2');
  await waitFor(() => env.listBackgroundCommands().every((c) => !c.running));
  const r = await call(env, 'input_command', { description: 'late', process_id: id, chars: 'x\n' });
  expect(r.out).toMatchObject({ output: 'bye\n[input not delivered: the process had already exited]\n[exit code: 2]', stop_reason: 'failed' });
});

test('unread output beyond 1 MiB keeps the newest text and says how much was dropped', async () => {
  const { env } = setup();
  const { id } = await background(env, "sleep 0.3; head -c 1572864 /dev/zero | tr '\\0' a; echo; echo END");
  expect(await waitFor(() => env.listBackgroundCommands().every((c) => !c.running), 5000)).toBe(true);
  const r = await call(env, 'input_command', { description: 'read', process_id: id });
  const total = 1572864 + 1 + 4;
  expect(r.out.output.startsWith(`[... ${total - 1024 * 1024} chars of earlier output dropped ...]\naaaa`)).toBe(true);
  expect(r.out.output).toContain('[output truncated: exceeded 16000 chars]');
});

test('kill_command returns the undelivered output and forgets the process', async () => {
  const { env } = setup();
  const { id } = await background(env, 'sleep 0.3; echo pending; sleep 30');
  await new Promise((r) => setTimeout(r, 600));
  const pid = env.listBackgroundCommands()[0].pid!;
  const r = await call(env, 'kill_command', { description: 'stop', process_id: id });
  expect(r.out.stop_reason).toBe('completed');
  expect(r.out.output).toBe(`pending\n[killed process ${id}] [terminated by signal SIGTERM]`);
  expect(env.listBackgroundCommands()).toEqual([]);
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
  const unknown = await call(env, 'kill_command', { description: 'again', process_id: id });
  expect(unknown.out.stop_reason).toBe('failed');
});

test('a process group that ignores SIGTERM is killed with SIGKILL after the grace', async () => {
  const { env } = setup();
  const { id } = await background(env, "trap '' TERM; echo armed; while :; do sleep 0.05; done");
  const r = await call(env, 'kill_command', { description: 'stop', process_id: id });
  expect(r.out.output).toBe(`[killed process ${id}] [terminated by signal SIGKILL]`);
});

test('killBackgroundCommand stops a process without a report', async () => {
  const { env } = setup();
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  const { out } = await call(env, 'exec_command', { description: 'bg', cmd: 'sleep 30', run_in_background: true });
  const id = procId(out.output);
  const pid = env.listBackgroundCommands()[0].pid!;
  expect(env.killBackgroundCommand(id)).toBe(true);
  expect(env.killBackgroundCommand('proc-00000000')).toBe(false);
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
  expect(notices).toEqual([]);
});

describe('CommandSessionManager', () => {
  const managers: CommandSessionManager[] = [];
  afterEach(async () => {
    for (const m of managers.splice(0)) await m.disposeAll();
  });
  const env = { ...fastHostEnv() } as Record<string, string>;

  test('at the cap, exited sessions go first, then the least recently used idle one (killed, no report)', async () => {
    const notices: BackgroundNotice[] = [];
    const m = new CommandSessionManager({ shell: 'bash', notify: (n) => notices.push(n), maxSessions: 3 });
    managers.push(m);
    const a = m.start({ cmd: 'sleep 30', cwd: '/', env, background: true });
    const done = m.start({ cmd: 'true', cwd: '/', env, background: false });
    const c = m.start({ cmd: 'sleep 30', cwd: '/', env, background: true });
    await done.finished;
    m.start({ cmd: 'sleep 30', cwd: '/', env, background: false });
    expect(m.ids()).not.toContain(done.id);
    expect(m.ids()).toContain(a.id);
    a.lastActivity = 1;
    c.lastActivity = 2;
    m.start({ cmd: 'sleep 30', cwd: '/', env, background: false });
    expect(m.ids()).not.toContain(a.id);
    expect(await waitFor(() => !isAlive(a.pid!))).toBe(true);
    expect(notices).toEqual([]);
  });

  test('a full manager whose sessions are all in use refuses a new one', async () => {
    const m = new CommandSessionManager({ shell: 'bash', notify: () => undefined, maxSessions: 1 });
    managers.push(m);
    const s = m.start({ cmd: 'sleep 30', cwd: '/', env, background: false });
    const release = await s.acquire();
    expect(() => m.start({ cmd: 'true', cwd: '/', env, background: false })).toThrow(/too many command sessions/);
    release!();
  });

  test('sessions idle for 10 days are swept at the next start', async () => {
    let now = 1_000_000;
    const m = new CommandSessionManager({ shell: 'bash', notify: () => undefined, now: () => now });
    managers.push(m);
    const old = m.start({ cmd: 'sleep 30', cwd: '/', env, background: false });
    now += BACKGROUND_IDLE_TTL_MS + 1;
    m.start({ cmd: 'true', cwd: '/', env, background: false });
    expect(m.ids()).not.toContain(old.id);
    expect(await waitFor(() => !isAlive(old.pid!))).toBe(true);
  });
});
