/**
 * End to end through the real parts: an agent directory created in a temp PENGUIN_HOME, the real
 * OpenAI-compatible model against the fake server, a real exec_command approved by the test, the answer
 * streamed, the trace on disk, and a resumed session that continues the conversation.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgent } from '../../../src/core/compose';
import * as b from '../../../src/core/omnimessage/builders';
import { isPayload } from '../../../src/core/omnimessage/guards';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { readLatestTrace } from '../../../src/core/trace';
import type { ToolCallMessage } from '../../../src/core/interfaces';
import { FakeOpenAIServer, turn } from '../../fakes/openai-server';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';

let home: string;
let workspace: string;
let server: FakeOpenAIServer;
let env: Record<string, string>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'pg-home-'));
  workspace = await mkdtemp(join(tmpdir(), 'pg-ws-'));
  server = new FakeOpenAIServer({ apiKey: 'sk-test' });
  const { baseUrl } = await server.start();
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl, PENGUIN_MODEL: 'fake-model' };
});
afterEach(async () => {
  await server.stop();
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

async function collect(it: AsyncIterable<OmniMessage>): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of it) out.push(m);
  return out;
}

const texts = (ms: OmniMessage[]) => ms.filter((m) => isPayload(m, 'text') && m.payload.role === 'assistant').map((m) => (m.payload as { text: string }).text);

describe('loadAgent', () => {
  it('runs a tool-using Task against the real model and tools, then resumes the session from its trace', async () => {
    const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const session = await loaded.agent.createSession({ workspace });

    server.enqueue(turn({ text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'exec_command', arguments: JSON.stringify({ description: 'Say hello', cmd: 'echo hello-from-tool' }) }] }));
    server.enqueue(turn({ text: 'The command printed hello-from-tool.' }));
    const asked: string[] = [];
    const approve = async (call: ToolCallMessage) => {
      asked.push(call.payload.name);
      return 'allow' as const;
    };
    const first = await collect(session.run([b.userText('run echo please')], { approve }));
    assertStreamDiscipline(first);
    expect(asked).toEqual(['exec_command']);
    const output = first.find((m) => isPayload(m, 'tool_call_output'));
    expect(output?.payload).toMatchObject({ output: expect.stringContaining('hello-from-tool'), stop_reason: 'completed' });
    expect(texts(first)).toEqual(['Let me look.', 'The command printed hello-from-tool.']);

    // The second request carried the tool result back as a `tool` message, with the system prompt first.
    const second = server.requests[1].body;
    expect(second.messages[0].role).toBe('system');
    expect(second.messages.find((m: { role: string }) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_1', content: expect.stringContaining('hello-from-tool') });

    await session.dispose();
    const trace = await readLatestTrace(loaded.state.paths.tracesDir, session.id);
    if (!trace.ok) throw new Error(trace.error.message);
    expect(trace.file.meta.payload).toMatchObject({ session_id: session.id, provider: 'openai', model_id: 'fake-model', workspace });
    expect(trace.file.messages.some((m) => isPayload(m, 'approval_decision') && m.payload.decision === 'allow')).toBe(true);
    const onDisk = await readFile(trace.file.path, 'utf8');
    expect(onDisk).not.toContain('partial_text');

    // A new process would load the agent again and resume by id.
    const again = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!again.ok) throw new Error('reload failed');
    const resumed = await again.agent.resumeSession(session.id);
    if (!resumed.ok) throw new Error(resumed.error.message);
    server.enqueue(turn({ text: 'Still here.' }));
    const third = await collect(resumed.session.run([b.userText('are you there?')], { approve }));
    expect(texts(third)).toEqual(['Still here.']);
    const history = server.requests[2].body.messages.map((m: { role: string }) => m.role);
    expect(history).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    await resumed.session.dispose();
  });

  it('denies tools when no approve callback is given and the model hears why', async () => {
    const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!loaded.ok) throw new Error('load failed');
    const session = await loaded.agent.createSession({ workspace });
    server.enqueue(turn({ toolCalls: [{ id: 'c', name: 'exec_command', arguments: JSON.stringify({ description: 'x', cmd: 'touch should-not-exist' }) }] }));
    server.enqueue(turn({ text: 'ok, denied' }));
    const msgs = await collect(session.run([b.userText('go')]));
    expect(msgs.find((m) => isPayload(m, 'tool_call_output'))?.payload).toMatchObject({ output: 'Tool call denied by user.', stop_reason: 'aborted' });
    await expect(readFile(join(workspace, 'should-not-exist'))).rejects.toThrow();
    await session.dispose();
  });

  it('vetoes a forbidden command through the project command policy without asking', async () => {
    const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!loaded.ok) throw new Error('load failed');
    const session = await loaded.agent.createSession({ workspace });
    server.enqueue(turn({ toolCalls: [{ id: 'c', name: 'exec_command', arguments: JSON.stringify({ description: 'wipe', cmd: 'rm -rf /' }) }] }));
    server.enqueue(turn({ text: 'refused' }));
    let asked = 0;
    const msgs = await collect(session.run([b.userText('go')], { approve: async () => { asked++; return 'allow'; } }));
    expect(asked).toBe(0);
    expect(msgs.find((m) => isPayload(m, 'approval_decision'))?.payload).toMatchObject({ decision: 'forbidden', policy_rule: 'rm-recursive-force' });
    await session.dispose();
  });

  it('exposes tool permissions for approval modes (read-only asks for rw and unknown tools)', async () => {
    const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!loaded.ok) throw new Error('load failed');
    const session = await loaded.agent.createSession({ workspace });
    expect(session.toolPermission('read_file')).toBe('r');
    expect(session.toolPermission('exec_command')).toBe('rw');
    expect(session.toolPermission('no_such_tool')).toBeUndefined();
    await session.dispose();
  });

  it('reports invalid agent files with their key path instead of starting', async () => {
    const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
    if (!loaded.ok) throw new Error('load failed');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(loaded.state.paths.systemConfig, 'system_prompt: x\nmax_turns: "many"\n');
    const bad = await loadAgent({ home, env, builtinSkillsDir: null });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.map((e) => e.message).join('\n')).toMatch(/max_turns/);
  });
});
