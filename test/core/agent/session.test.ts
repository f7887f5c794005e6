/**
 * Agent and Session composition (engine.md §0, §2.1, §5, §9): session creation (meta, workspace,
 * scratchpad, builders' inputs), input validation, one Task or compaction at a time, the command policy,
 * idle notices, titles, dispose, and resumeSession's typed errors and continuation.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import * as b from '../../../src/core/omnimessage/builders';
import { SessionBusyError } from '../../../src/core/engine/reserved-stream';
import { createAgent } from '../../../src/core/agent/agent';
import { listTraceFiles } from '../../../src/core/trace/paths';
import { readLatestTrace } from '../../../src/core/trace/reader';
import { ScriptedModels, turn } from '../../fakes/scripted-llm';
import { collect, ofType, payload, TempDirs, types, user } from '../engine/helpers';
import { agentRig } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

describe('Agent / Session', () => {
  test('createSession freezes a session_meta, makes a temp workspace (the scratchpad waits for a tool), and wires the builders', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.text('hi there')])], tools: { read_file: { permission: 'r' } } });
    const s = await r.agent.createSession();
    expect(s.id).toMatch(/^session-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{8}$/);
    expect(s.workspace).toMatch(/agents\/default_agent\/workspaces\/tmp-[0-9a-f]{8}$/);
    expect((await stat(s.workspace)).isDirectory()).toBe(true);
    expect(s.scratchpadDir).toBe(join(r.root, 'default_project', 'agents', 'default_agent', 'scratchpad', s.id));
    await expect(stat(s.scratchpadDir)).rejects.toThrow(/ENOENT/);
    expect(s.meta.payload).toEqual({
      session_id: s.id, provider: 'fake', model_id: 'scripted', model_context_window: 64000,
      system_prompt: `You are default_agent in ${s.workspace}.`, agent_state: r.agentStateDir, workspace: s.workspace,
    });
    expect(s.status).toBe('idle');
    expect(await listTraceFiles(r.tracesDir, s.id)).toEqual([]);
    // An idle new session has no Environment, engine or model yet: they are assembled by its first run.
    expect(r.envContexts).toEqual([]);
    expect(r.factoryContexts).toEqual([]);
    expect(s.steer('anyone there?')).toBe(false);
    const msgs = await collect(s.run([user('hello')]));
    assertStreamDiscipline(msgs);
    const read = await readLatestTrace(r.tracesDir, s.id);
    expect(read.ok && read.file.meta).toEqual(s.meta);
    expect(read.ok && payload(read.file.messages[0]).text).toBe('hello');
    expect(r.envContexts[0]).toMatchObject({ sessionId: s.id, workspace: s.workspace, scratchpadDir: s.scratchpadDir, isSubagent: false });
    expect(r.envContexts[0].subagentRunner).toBeDefined();
    expect(r.factoryContexts[0]).toMatchObject({ sessionId: s.id, systemPrompt: s.meta.payload.system_prompt, thinkingLevel: 'low' });
    expect(r.factoryContexts[0].tools.map((t) => t.name)).toEqual(['read_file']);
    await s.dispose();
    expect(r.envs.get(s.id)!.disposed).toBe(1);
  });

  test('an explicit workspace must exist; a schedule source is recorded in the meta', async () => {
    const r = await agentRig(dirs);
    await expect(r.agent.createSession({ workspace: join(r.root, 'nope') })).rejects.toThrow(/not an existing directory/);
    const ws = join(r.root, 'ws');
    await mkdir(ws);
    const s = await r.agent.createSession({ workspace: ws, source: 'schedule' });
    expect(s.workspace).toBe(ws);
    expect(s.meta.payload.source).toBe('schedule');
  });

  test('createAgent rejects unusable options with every problem named', async () => {
    expect(() => createAgent({ projectId: '', agentId: 'a', tracesDir: '/t', agentStateDir: '/s', model: { provider: 'p', modelId: '' }, engine: { max_turns: 0 } } as never)).toThrow(
      /projectId: must not be empty.*model\.modelId: must not be empty.*modelFactory: .*engine\.max_turns: must be > 0 or -1/,
    );
  });

  test('run validates its input at the boundary', async () => {
    const r = await agentRig(dirs);
    const s = await r.agent.createSession();
    expect(() => s.run([b.assistantText('not mine')])).toThrow(/newMessages\[0\]: expected a user text.*found model_msg text \(assistant\)/);
    expect(() => s.run([{ nope: true } as never])).toThrow(/newMessages\[0\]: timestamp/);
    expect(s.status).toBe('idle');
  });

  test('one Task or compaction at a time: a concurrent run or compact throws SessionBusyError synchronously', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.text('a'), turn.text('b')])], options: { engine: { compaction: { prompt: 'sum' } } } });
    const s = await r.agent.createSession();
    const first = s.run([user('1')]);
    expect(s.status).toBe('running');
    expect(() => s.run([user('2')])).toThrow(SessionBusyError);
    expect(() => s.compact()).toThrow(SessionBusyError);
    const msgs = await collect(first);
    expect(ofType(msgs, 'text').map((m) => payload(m).text)).toEqual(['a']);
    expect(s.status).toBe('idle');
    expect(s.steer('late')).toBe(false);
    expect(() => s.steer('')).toThrow(/needs text or at least one image/);
  });

  test('the command policy forbids without asking the host and names the rule', async () => {
    const asked: string[] = [];
    const r = await agentRig(dirs, {
      scripts: [new ScriptedModels([turn.tools([{ name: 'exec_command', id: 'c1', args: { cmd: 'rm -rf /' } }]), turn.text('ok')])],
      tools: { exec_command: {} },
      options: { commandPolicy: (tc) => (/rm -rf/.test(tc.payload.arguments) ? { rule: 'rm-recursive-force' } : undefined) },
    });
    const s = await r.agent.createSession();
    const msgs = await collect(s.run([user('clean up')], { approve: async (tc) => { asked.push(tc.payload.tool_call_id); return 'allow'; } }));
    expect(asked).toEqual([]);
    expect(payload(ofType(msgs, 'approval_decision')[0])).toEqual({ type: 'approval_decision', decision: 'forbidden', tool_call_id: 'c1', policy_rule: 'rm-recursive-force' });
    expect(payload(ofType(msgs, 'tool_call_output')[0])).toMatchObject({ output: 'Tool call denied by policy.', stop_reason: 'aborted' });
  });

  test('idle background notices reach onIdleNotice and the next run delivers them', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.text('first'), turn.text('noted')])] });
    const s = await r.agent.createSession();
    await collect(s.run([user('start')]));
    const heard: string[] = [];
    s.onIdleNotice((ns) => heard.push(...ns.map((n) => n.id)));
    r.envs.get(s.id)!.notify({ kind: 'subagent', id: 'subagent-12345678', status: 'completed', label: 'research', detail: 'found it' });
    expect(heard).toEqual(['subagent-12345678']);
    const msgs = await collect(s.run([]));
    expect(payload(msgs.find((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'user')!).text).toMatch(/^\[background_task_done\]\nkind: subagent/);
  });

  test('generateTitle: a cleaned ≤30-char model title, else the first line of the user text', async () => {
    const models = new ScriptedModels([turn.text('ok')]);
    const r = await agentRig(dirs, { scripts: [models] });
    const s = await r.agent.createSession();
    await collect(s.run([user('How do I rotate my API keys safely?\nMore details here.')]));
    models.bareReply = '"Rotating API keys safely and quickly."';
    expect(await s.generateTitle()).toBe('Rotating API keys safely and');
    expect(models.barePrompts[0]).toContain('How do I rotate my API keys safely?');
    models.bareReply = '';
    expect(await s.generateTitle()).toBe('How do I rotate my API keys sa');
    models.bareReply = () => { throw new Error('offline'); };
    expect(await s.generateTitle({ user: 'Short one' })).toBe('Short one');
  });

  test('resumeSession returns typed errors and never throws', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.text('a')])] });
    expect(await r.agent.resumeSession('bogus')).toMatchObject({ ok: false, error: { code: 'invalid_session_id' } });
    expect(await r.agent.resumeSession('session-2026-01-01-00-00-00-00000000')).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const s = await r.agent.createSession();
    await collect(s.run([user('x')]));
    await s.dispose();
    await rm(s.workspace, { recursive: true });
    expect(await r.agent.resumeSession(s.id)).toMatchObject({ ok: false, error: { code: 'workspace_missing' } });
    const other = await agentRig(dirs, { options: { tracesDir: r.tracesDir, model: { provider: 'other', modelId: 'm' } } });
    await mkdir(s.workspace);
    expect(await other.agent.resumeSession(s.id)).toMatchObject({ ok: false, error: { code: 'model_unavailable' } });
    const broken = await agentRig(dirs, { options: { tracesDir: r.tracesDir, environment: () => { throw new Error('sandbox unavailable'); } } });
    expect(await broken.agent.resumeSession(s.id)).toMatchObject({ ok: false, error: { code: 'build_failed', message: expect.stringContaining('sandbox unavailable') } });
  });

  test('a resumed session continues the same trace file with the replayed history on a fresh model', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.tools([{ name: 'a', id: 'c1' }]), turn.text('first done')]), new ScriptedModels([turn.text('second done')])], tools: { a: { chunks: ['A'] } } });
    const s = await r.agent.createSession();
    await collect(s.run([user('one')], { approve: async () => 'allow' }));
    const live = r.models.get(s.id)!.current.history;
    await s.dispose();
    r.models.delete(s.id);
    const res = await r.agent.resumeSession(s.id);
    if (!res.ok) throw new Error(res.error.message);
    const s2 = res.session;
    expect(s2.id).toBe(s.id);
    expect(s2.meta).toEqual(s.meta);
    expect(s2.compactability()).toBe('unsupported');
    const msgs = await collect(s2.run([user('two')]));
    assertStreamDiscipline(msgs);
    const m2 = r.models.get(s.id)!;
    expect(JSON.parse(JSON.stringify(m2.created[0].history.slice(0, live.length)))).toEqual(JSON.parse(JSON.stringify(live)));
    expect(m2.created[0].historySet).toBe(1);
    expect(m2.violations).toEqual([]);
    expect(await listTraceFiles(r.tracesDir, s.id)).toHaveLength(1);
    const text = await readFile((await listTraceFiles(r.tracesDir, s.id))[0].path, 'utf8');
    expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).type).filter((t: string) => t === 'session_meta')).toHaveLength(1);
    expect(types(msgs)[0]).toBe('tool_list_ready');
    await s2.dispose();
  });

  test('createSession takes an id the host reserved while it has no traces, and refuses one that has', async () => {
    const r = await agentRig(dirs, { scripts: [new ScriptedModels([turn.text('a')]), new ScriptedModels([turn.text('b')])] });
    const id = 'session-2026-01-01-00-00-00-0000abcd';
    const s = await r.agent.createSession({ sessionId: id });
    expect(s.id).toBe(id);
    expect(s.meta.payload.session_id).toBe(id);
    await collect(s.run([user('x')]));
    await s.dispose();
    await expect(r.agent.createSession({ sessionId: id })).rejects.toThrow(`session ${id} already has traces; resume it instead`);
    await expect(r.agent.createSession({ sessionId: 'nope' })).rejects.toThrow('createSession: sessionId is not a valid session id: "nope"');
  });

  test('createSession runs a model of the project other than the default when asked (a schedule\'s provider + model_id), and refuses an unknown one', async () => {
    const other = { provider: 'fake', modelId: 'other', contextWindow: 32000 };
    const r = await agentRig(dirs, {
      options: { resolveModel: (p, m) => (p === other.provider && m === other.modelId ? other : p === 'fake' && m === 'scripted' ? { provider: 'fake', modelId: 'scripted' } : undefined) },
    });
    const s = await r.agent.createSession({ model: { provider: 'fake', modelId: 'other' }, source: 'schedule' });
    expect(s.meta.payload).toMatchObject({ provider: 'fake', model_id: 'other', model_context_window: 32000, source: 'schedule' });
    expect(s.model).toEqual(other);
    await s.dispose();
    await expect(r.agent.createSession({ model: { provider: 'fake', modelId: 'nope' } })).rejects.toThrow('createSession: unknown model fake/nope');
  });
});
