/**
 * run_subagent / input_subagent / kill_subagent over a scripted SubagentRunner: forwarding with origin,
 * the child's text as output, windows, follow-up prompts, background reports, kills, aborts and caps.
 */
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import type { ApproveFn, BackgroundNotice } from '../../../src/core/interfaces';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import { FakeRunner, Gate, hold, meta, textSegment, type Script } from './fake-subagents';
import { call, makeEnv, removeTempDirs, waitFor } from './helpers';
import { SubagentManager } from '../../../src/core/environment/tools/subagent-manager';
import { BACKGROUND_IDLE_TTL_MS } from '../../../src/core/environment/limits';

const disposers: (() => Promise<void>)[] = [];
function setup(script: Script) {
  const runner = new FakeRunner(script);
  const made = makeEnv({ services: { subagentRunner: runner } });
  disposers.push(() => made.env.dispose());
  return { ...made, runner };
}
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});
afterAll(removeTempDirs);

const subId = (text: string) => /subagent-[0-9a-f]{8}/.exec(text)?.[0] ?? '';

/** A child that answers each prompt with "re: <prompt>" in two deltas. */
const echoScript: Script = async function* (input, child) {
  if (child.rounds.length === 1) yield meta(child.sessionId);
  yield* textSegment(['re: ', input.prompt]);
};

/** A child that streams "part1", waits for `gate`, then streams "part2" (or closes as aborted). */
function gatedScript(gates: Gate[]): Script {
  return async function* (input, child) {
    yield meta(child.sessionId);
    yield b.partialText('start');
    yield b.partialText('delta', 'part1 ');
    const gate = gates[child.rounds.length - 1] ?? new Gate();
    if (await hold(gate, input.signal)) {
      yield b.partialText('stop', '', 'aborted');
      yield b.assistantText('part1 ', { stop_reason: 'aborted' });
      yield b.abort('aborted by user');
      return;
    }
    yield b.partialText('delta', 'part2');
    yield b.partialText('stop', '', 'completed');
    yield b.assistantText('part1 part2');
  };
}

test('a finished child: its messages are forwarded origin-tagged and its text is the output', async () => {
  const { env, runner } = setup(echoScript);
  const approve: ApproveFn = async () => 'allow';
  const { out, msgs, forwarded } = await call(
    env,
    'run_subagent',
    { description: 'ask', prompt: 'hello', agent_id: 'helper', model_id: 'm2', provider: 'p2', thinking_level: 'high' },
    { approve },
  );
  const child = runner.children[0];
  expect(out.stop_reason).toBe('completed');
  expect(out.output).toBe(`re: hello\n[subagent subagent-${child.sessionId.slice(-8)} is idle; give it more work with input_subagent]`);
  expect(runner.spawns).toEqual([{ agentId: 'helper', modelId: 'm2', provider: 'p2', thinkingLevel: 'high' }]);
  expect(child.rounds[0].approve).toBe(approve);
  expect(forwarded[0].type).toBe('session_meta');
  expect(forwarded.every((m) => m.origin?.length === 1 && m.origin[0] === child.sessionId)).toBe(true);
  expect(forwarded.map((m) => (m.type === 'session_meta' ? 'meta' : m.payload.type))).toEqual([
    'meta', 'partial_text', 'partial_text', 'partial_text', 'partial_text', 'text',
  ]);
  expect(msgs.indexOf(forwarded[0])).toBeGreaterThan(0);
});

test('a child whose round ends with an abort event fails with the reason', async () => {
  const { env } = setup(async function* () {
    yield* textSegment(['trying']);
    yield b.abort('llm request failed after 5 retries: overloaded');
  });
  const { out } = await call(env, 'run_subagent', { description: 'd', prompt: 'p' });
  expect(out).toMatchObject({ output: 'trying\n[subagent aborted: llm request failed after 5 retries: overloaded]', stop_reason: 'failed' });
});

test('a child that throws fails the round with the error', async () => {
  const { env } = setup(async function* () {
    yield* textSegment(['x']);
    throw new Error('child crashed');
  });
  const { out } = await call(env, 'run_subagent', { description: 'd', prompt: 'p' });
  expect(out).toMatchObject({ output: 'x\n[subagent aborted: child crashed]', stop_reason: 'failed' });
});

test('still running at the end of the window: the id note, then a poll delivers the rest', async () => {
  const gate = new Gate();
  const { env } = setup(gatedScript([gate]));
  const first = await call(env, 'run_subagent', { description: 'd', prompt: 'p', yield_time_ms: 250 }, { skipDiscipline: true });
  expect(first.out.stop_reason).toBe('completed');
  expect(first.out.output).toMatch(/^part1 \n\[subagent running with subagent_id subagent-[0-9a-f]{8}; /);
  const id = subId(first.out.output);
  const busy = await call(env, 'input_subagent', { description: 'more', subagent_id: id, prompt: 'another' }, { skipDiscipline: true });
  expect(busy.out.stop_reason).toBe('failed');
  expect(busy.out.output).toContain('still working');
  gate.release();
  const poll = await call(env, 'input_subagent', { description: 'poll', subagent_id: id, yield_time_ms: 5000 }, { skipDiscipline: true });
  expect(poll.out.output).toBe(`part2\n[subagent ${id} is idle; give it more work with input_subagent]`);
  const all: OmniMessage[] = [...first.msgs, ...busy.msgs, ...poll.msgs];
  assertStreamDiscipline(all.filter((m) => m.origin), {});
});

test('an idle subagent takes a follow-up prompt; a poll with nothing new says it is idle', async () => {
  const { env, runner } = setup(echoScript);
  const first = await call(env, 'run_subagent', { description: 'd', prompt: 'one' });
  const id = subId(first.out.output);
  const second = await call(env, 'input_subagent', { description: 'd', subagent_id: id, prompt: 'two' });
  expect(second.out.output.startsWith('re: two\n')).toBe(true);
  expect(runner.children).toHaveLength(1);
  expect(runner.children[0].rounds.map((r) => r.prompt)).toEqual(['one', 'two']);
  const idle = await call(env, 'input_subagent', { description: 'd', subagent_id: id });
  expect(idle.out).toMatchObject({ output: `[subagent ${id} is idle; give it more work with input_subagent]`, stop_reason: 'completed' });
  const unknown = await call(env, 'input_subagent', { description: 'd', subagent_id: 'subagent-deadbeef' });
  expect(unknown.out.stop_reason).toBe('failed');
  expect(unknown.out.output).toContain(`Managed subagents: ${id}`);
});

test('run_in_background answers at once and reports each finished round', async () => {
  const gate = new Gate();
  const { env } = setup(gatedScript([gate]));
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  const { out } = await call(env, 'run_subagent', { description: 'Research the topic', prompt: 'p', run_in_background: true }, { skipDiscipline: true });
  expect(out.output).toContain('[running in background: each finished round will be reported]');
  const id = subId(out.output);
  expect(notices).toEqual([]);
  gate.release();
  expect(await waitFor(() => notices.length === 1)).toBe(true);
  expect(notices[0]).toEqual({ kind: 'subagent', id, status: 'completed', label: 'Research the topic', detail: 'part1 part2' });
});

test('a failed background round is reported as failed', async () => {
  const { env } = setup(async function* () {
    yield b.abort('compaction failed');
  });
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  await call(env, 'run_subagent', { description: 'bg', prompt: 'p', run_in_background: true });
  expect(await waitFor(() => notices.length === 1)).toBe(true);
  expect(notices[0]).toMatchObject({ status: 'failed', detail: '[subagent aborted: compaction failed]' });
});

test('kill_subagent aborts the round, returns undelivered text, disposes and forgets it, without a report', async () => {
  const { env, runner } = setup(gatedScript([]));
  const notices: BackgroundNotice[] = [];
  env.onBackgroundNotice((n) => notices.push(n));
  const started = await call(env, 'run_subagent', { description: 'd', prompt: 'p', run_in_background: true }, { skipDiscipline: true });
  const id = subId(started.out.output);
  await waitFor(() => runner.children[0].rounds.length === 1);
  const killed = await call(env, 'kill_subagent', { description: 'stop', subagent_id: id }, { skipDiscipline: true });
  expect(killed.out).toMatchObject({ output: `part1 \n[killed subagent ${id}]`, stop_reason: 'completed' });
  const child = runner.children[0];
  expect(child.rounds[0].signal.aborted).toBe(true);
  expect(child.disposed).toBe(true);
  expect(killed.forwarded.some((m) => m.type === 'event_msg' && m.payload.type === 'abort')).toBe(true);
  assertStreamDiscipline([...started.msgs, ...killed.msgs].filter((m) => m.origin));
  const after = await call(env, 'input_subagent', { description: 'd', subagent_id: id });
  expect(after.out.stop_reason).toBe('failed');
  await new Promise((r) => setTimeout(r, 50));
  expect(notices).toEqual([]);
});

test('a user abort in the window stops the child round', async () => {
  const { env, runner } = setup(gatedScript([]));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const { out, forwarded } = await call(env, 'run_subagent', { description: 'd', prompt: 'p' }, { signal: ac.signal });
  expect(out).toMatchObject({ output: 'part1 \n[interrupted: tool aborted by user]', stop_reason: 'aborted' });
  expect(runner.children[0].rounds[0].signal.aborted).toBe(true);
  expect(forwarded[forwarded.length - 1].payload).toMatchObject({ type: 'abort' });
});

test('at most 8 subagents: running ones are never evicted, an idle one is', async () => {
  const gates = Array.from({ length: 9 }, () => new Gate());
  let n = 0;
  const script: Script = async function* (input, child) {
    const gate = gates[n++];
    yield* textSegment([child.sessionId]);
    if (await hold(gate, input.signal)) yield b.abort('aborted');
  };
  const { env, runner } = setup(script);
  for (let i = 0; i < 8; i++) await call(env, 'run_subagent', { description: 'd', prompt: `p${i}`, run_in_background: true });
  const ninth = await call(env, 'run_subagent', { description: 'd', prompt: 'p8', run_in_background: true });
  expect(ninth.out.stop_reason).toBe('failed');
  expect(ninth.out.output).toContain('too many subagents');
  gates[3].release();
  await waitFor(() => runner.children[3].rounds.length === 1);
  await new Promise((r) => setTimeout(r, 50));
  const retry = await call(env, 'run_subagent', { description: 'd', prompt: 'p9', run_in_background: true });
  expect(retry.out.stop_reason).toBe('completed');
  expect(runner.children[3].disposed).toBe(true);
  expect(runner.children.filter((c) => c.disposed)).toHaveLength(1);
});

test('spawn failures and a missing runner are failed outputs', async () => {
  const { env, runner } = setup(echoScript);
  runner.failWith = 'subagent depth limit (1) reached';
  const { out } = await call(env, 'run_subagent', { description: 'd', prompt: 'p' });
  expect(out).toMatchObject({ output: 'Could not start the subagent: subagent depth limit (1) reached', stop_reason: 'failed' });
  const bare = makeEnv();
  const none = await call(bare.env, 'run_subagent', { description: 'd', prompt: 'p' });
  expect(none.out.output).toBe('Could not start the subagent: subagents are not available in this session');
  await bare.env.dispose();
});

test('messages a child yields without origin are tagged with its session id', async () => {
  const { env, runner } = setup(echoScript);
  runner.children.length = 0;
  const call1 = env.executeTool({ toolCall: b.toolCall({ name: 'run_subagent', arguments: JSON.stringify({ description: 'd', prompt: 'x' }), tool_call_id: 'c1' }) });
  const first = await call1.next();
  expect(first.value).toMatchObject({ payload: { event_type: 'start' } });
  runner.children.forEach((c) => (c.tagOrigin = false));
  const rest: OmniMessage[] = [];
  for await (const m of call1) rest.push(m);
  const child = runner.children[0];
  const forwarded = rest.filter((m) => m.origin);
  expect(forwarded.length).toBeGreaterThan(0);
  expect(forwarded.every((m) => m.origin![0] === child.sessionId)).toBe(true);
});

test('idle subagents are swept after 10 days; running ones stay', async () => {
  let now = 5_000_000;
  const runner = new FakeRunner(echoScript);
  const m = new SubagentManager({ runner, notify: () => undefined, now: () => now });
  const idle = await m.spawn({ label: 'a', background: false });
  idle.startRound('x');
  await waitFor(() => !idle.running);
  const gate = new Gate();
  const busyRunner = new FakeRunner(gatedScript([gate]));
  const m2 = new SubagentManager({ runner: busyRunner, notify: () => undefined, now: () => now });
  const busy = await m2.spawn({ label: 'b', background: false });
  busy.startRound('y');
  now += BACKGROUND_IDLE_TTL_MS + 1;
  await m.spawn({ label: 'c', background: false });
  await m2.spawn({ label: 'd', background: false });
  expect(m.ids()).not.toContain(idle.id);
  expect(runner.children[0].disposed).toBe(true);
  expect(m2.ids()).toContain(busy.id);
  gate.release();
  await m.disposeAll();
  await m2.disposeAll();
});
