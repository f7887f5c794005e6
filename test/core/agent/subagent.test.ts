/**
 * Subagents (engine.md §2.3, §4.4, §7): a tool in the parent's Environment spawns a child through the
 * SubagentRunner; the child's messages reach the parent stream origin-tagged, starting with the child's
 * session_meta; the parent trace gets a `subagent` pointer and none of the child's messages; the child has
 * its own trace (`source: "subagent"`, prompt from `parent_agent`), no subagent tools, and its approvals go
 * through the approve the parent passed down.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import type { ApproveFn } from '../../../src/core/interfaces';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { readLatestTrace } from '../../../src/core/trace/reader';
import { ScriptedModels, turn } from '../../fakes/scripted-llm';
import type { FakeTool } from '../../fakes/fake-environment';
import { collect, payload, TempDirs, types, user } from '../engine/helpers';
import { agentRig } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const runSubagent: FakeTool = {
  async *run(ctx) {
    const runner = ctx.services.subagentRunner;
    if (!runner) throw new Error('no subagent runner');
    const handle = await runner.spawn({ thinkingLevel: 'high' });
    let reply = '';
    for await (const m of handle.run({ prompt: String(ctx.args.prompt), signal: ctx.signal, approve: ctx.approve })) {
      if (m.origin?.length === 1 && m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'assistant') reply += m.payload.text;
      yield m;
    }
    handle.dispose();
    yield reply;
  },
};

describe('subagents', () => {
  test('child messages arrive origin-tagged (meta first), stay out of the parent trace, and the child has its own trace', async () => {
    const parentModels = new ScriptedModels([turn.tools([{ name: 'run_subagent', id: 'p1', args: { prompt: 'count files' } }]), turn.text('the child said 3')]);
    const childModels = new ScriptedModels([turn.tools([{ name: 'ls', id: 'k1' }]), turn.text('3 files')]);
    const asked: string[] = [];
    const approve: ApproveFn = async (tc) => {
      asked.push(tc.payload.tool_call_id);
      return 'allow';
    };
    const r = await agentRig(dirs, {
      scripts: [parentModels, childModels],
      tools: (ctx): Record<string, FakeTool> => (ctx.isSubagent ? { ls: { chunks: ['a b c'] } } : { run_subagent: runSubagent }),
    });
    const parent = await r.agent.createSession();
    const msgs = await collect(parent.run([user('how many files?')], { approve }));
    assertStreamDiscipline(msgs);
    const child = r.envContexts.find((c) => c.isSubagent)!;
    expect(child.subagentRunner).toBeUndefined();
    const childId = child.sessionId;
    const tagged = msgs.filter((m) => m.origin !== undefined);
    expect(tagged.length).toBeGreaterThan(5);
    expect(tagged.every((m) => m.origin!.length === 1 && m.origin![0] === childId)).toBe(true);
    expect(tagged[0].type).toBe('session_meta');
    expect(payload(tagged[0])).toMatchObject({ session_id: childId, source: 'subagent', workspace: parent.workspace });
    expect(asked).toEqual(['p1', 'k1']);
    const out = msgs.find((m) => m.origin === undefined && m.type === 'model_msg' && m.payload.type === 'tool_call_output')!;
    expect(payload(out).output).toBe('3 files');
    expect(childModels.requests.every((q) => q.thinkingLevel === 'high')).toBe(true);
    expect(payload(childModels.requests[0].newMessages[0])).toMatchObject({ text: 'count files', sender: 'parent_agent' });
    // the parent's second request got the tool output only, never a child message
    expect(parentModels.requests[1].newMessages.map((m) => payload(m).tool_call_id)).toEqual(['p1']);

    await parent.dispose();
    const pt = await readLatestTrace(r.tracesDir, parent.id);
    if (!pt.ok) throw new Error(pt.error.message);
    expect(pt.file.messages.some((m: OmniMessage) => m.origin !== undefined)).toBe(false);
    const pointers = pt.file.messages.filter((m) => m.type === 'event_msg' && m.payload.type === 'subagent');
    expect(pointers.map((m) => payload(m).session_id)).toEqual([childId]);
    const ct = await readLatestTrace(r.tracesDir, childId);
    if (!ct.ok) throw new Error(ct.error.message);
    expect(ct.file.meta.payload).toMatchObject({ session_id: childId, source: 'subagent' });
    expect(types(ct.file.messages)).toContain('tool_call_output');
    expect(payload(ct.file.messages[0])).toMatchObject({ sender: 'parent_agent', text: 'count files' });
  });

  test('spawn prechecks: unknown model and unknown agent throw; a child cannot spawn', async () => {
    const r = await agentRig(dirs, { tools: {} });
    const s = await r.agent.createSession();
    s.toolPermission('read_file'); // a new session's Environment is assembled at its first use
    const runner = r.envContexts[0].subagentRunner!;
    await expect(runner.spawn({ modelId: 'nope' })).rejects.toThrow(/unknown model: fake\/nope/);
    await expect(runner.spawn({ agentId: 'someone_else' })).rejects.toThrow(/unknown agent: someone_else/);
    const h = await runner.spawn({});
    expect(r.envContexts.at(-1)).toMatchObject({ sessionId: h.sessionId, isSubagent: true });
    expect(r.envContexts.at(-1)!.subagentRunner).toBeUndefined();
    h.dispose();
    await s.dispose();
  });
});
