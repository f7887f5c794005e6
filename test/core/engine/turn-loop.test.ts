/**
 * The turn loop's guarantees (engine.md §2.2–2.4, §2.10): streaming discipline of the merged stream,
 * approval ordering and exactly-once, one output per committed call, token_usage/request_end placement,
 * request_end completed ⇔ committed, stream order = trace order, late outputs, call-order re-feed.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import * as b from '../../../src/core/omnimessage/builders';
import { isTraceable } from '../../../src/core/omnimessage/guards';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import type { ApproveFn } from '../../../src/core/interfaces';
import { turn, textStream, toolCallStream } from '../../fakes/scripted-llm';
import { collect, ofType, payload, rig, TempDirs, types, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const allow: ApproveFn = async () => 'allow';
const outputsOf = (msgs: OmniMessage[]) => ofType(msgs, 'tool_call_output').map((m) => payload<{ tool_call_id: string; output: string; stop_reason?: string }>(m));

describe('turn loop', () => {
  test('the merged stream keeps the streaming discipline (adjacent stop → complete), with tools streaming concurrently', async () => {
    const r = await rig(dirs, {
      script: [turn.tools([{ name: 'a', id: 'c1' }, { name: 'b', id: 'c2' }], { thinking: 'hmm', text: 'working' }), turn.text('done')],
      tools: { a: { chunks: ['x', 'y', 'z'] }, b: { chunks: ['1', '2'] } },
    });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    assertStreamDiscipline(msgs);
    expect(ofType(msgs, 'partial_tool_call_output').length).toBeGreaterThan(4);
    expect(types(msgs).at(-1)).toBe('request_end');
  });

  test('approval_decision follows its tool_call and precedes any of its output; approvals are sequential and asked once', async () => {
    const asked: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const approve: ApproveFn = async (tc) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      asked.push(tc.payload.tool_call_id);
      await new Promise((res) => setImmediate(res));
      inFlight--;
      return 'allow';
    };
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }, { name: 'a', id: 'c2' }, { name: 'a', id: 'c3' }]), turn.text('ok')], tools: { a: {} } });
    const msgs = await collect(r.engine.run([user('go')], { approve }));
    expect(asked).toEqual(['c1', 'c2', 'c3']);
    expect(maxInFlight).toBe(1);
    for (const id of ['c1', 'c2', 'c3']) {
      const call = msgs.findIndex((m) => m.type === 'model_msg' && m.payload.type === 'tool_call' && m.payload.tool_call_id === id);
      const decision = msgs.findIndex((m) => m.type === 'event_msg' && m.payload.type === 'approval_decision' && m.payload.tool_call_id === id);
      const firstOut = msgs.findIndex((m) => m.type === 'model_msg' && (m.payload.type === 'tool_call_output' || m.payload.type === 'partial_tool_call_output') && m.payload.tool_call_id === id);
      expect(call).toBeGreaterThanOrEqual(0);
      expect(decision).toBeGreaterThan(call);
      expect(firstOut).toBeGreaterThan(decision);
      expect(ofType(msgs, 'approval_decision').filter((m) => payload<{ tool_call_id: string }>(m).tool_call_id === id)).toHaveLength(1);
    }
  });

  test('every committed call gets exactly one output: allowed, denied, forbidden by policy, and an Environment that throws', async () => {
    const approve: ApproveFn = async (tc) => (tc.payload.tool_call_id === 'deny' ? 'deny' : 'allow');
    const r = await rig(dirs, {
      script: [turn.tools([{ name: 'ok', id: 'ok' }, { name: 'ok', id: 'deny' }, { name: 'rm', id: 'policy' }, { name: 'boom', id: 'boom' }, { name: 'boom2', id: 'boom2' }]), turn.text('fine')],
      tools: { ok: { chunks: ['fine'] }, rm: {}, boom: { throws: 'disk on fire' }, boom2: { chunks: ['partial'], throws: 'late crash', throwAfterChunks: true } },
      engine: { commandPolicy: (tc) => (tc.payload.name === 'rm' ? { rule: 'rm-recursive-force' } : undefined) },
    });
    const msgs = await collect(r.engine.run([user('go')], { approve }));
    assertStreamDiscipline(msgs);
    const outs = outputsOf(msgs);
    expect(outs.map((o) => o.tool_call_id).sort()).toEqual(['boom', 'boom2', 'deny', 'ok', 'policy']);
    const by = Object.fromEntries(outs.map((o) => [o.tool_call_id, o]));
    expect(by.ok).toMatchObject({ output: 'fine', stop_reason: 'completed' });
    expect(by.deny).toMatchObject({ output: 'Tool call denied by user.', stop_reason: 'aborted' });
    expect(by.policy).toMatchObject({ output: 'Tool call denied by policy.', stop_reason: 'aborted' });
    expect(by.boom).toMatchObject({ output: '[tool error] disk on fire', stop_reason: 'failed' });
    expect(by.boom2).toMatchObject({ output: 'partial\n[tool error] late crash', stop_reason: 'failed' });
    const decisions = ofType(msgs, 'approval_decision').map((m) => payload(m));
    expect(decisions).toContainEqual({ type: 'approval_decision', decision: 'forbidden', tool_call_id: 'policy', policy_rule: 'rm-recursive-force' });
    expect(r.env.calls.map((c) => c.toolCall.payload.tool_call_id)).not.toContain('policy');
    expect(r.models.violations).toEqual([]);
  });

  test('no approve callback denies every call; a throwing callback denies; the policy answers without asking the host', async () => {
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.text('ok'), turn.tools([{ name: 'a', id: 'c2' }, { name: 'rm', id: 'c3' }]), turn.text('ok')], tools: { a: {}, rm: {} }, engine: { commandPolicy: (tc) => (tc.payload.name === 'rm' ? { rule: 'fork-bomb' } : undefined) } });
    const first = await collect(r.engine.run([user('one')]));
    expect(ofType(first, 'approval_decision').map((m) => payload(m).decision)).toEqual(['deny']);
    expect(outputsOf(first)[0].output).toBe('Tool call denied by user.');
    const asked: string[] = [];
    const second = await collect(r.engine.run([user('two')], { approve: async (tc) => { asked.push(tc.payload.tool_call_id); throw new Error('ui crashed'); } }));
    expect(ofType(second, 'approval_decision').map((m) => payload(m).decision)).toEqual(['deny', 'forbidden']);
    expect(asked).toEqual(['c2']);
    expect(r.env.calls).toHaveLength(0);
  });

  test('token_usage is the model stream\'s last message and request_end follows it at once, even while tools stream', async () => {
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }, { name: 'a', id: 'c2' }]), turn.text('done')], tools: { a: { chunks: ['1', '2', '3', '4', '5'] } } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    const usages = msgs.map((m, i) => [m, i] as const).filter(([m]) => m.type === 'event_msg' && m.payload.type === 'token_usage');
    expect(usages).toHaveLength(2);
    for (const [, i] of usages) expect(types(msgs)[i + 1]).toBe('request_end');
    // nothing from the model after its token_usage within a request
    let inRequest = false;
    let sawUsage = false;
    for (const m of msgs) {
      if (m.type !== 'session_meta' && m.payload.type === 'request_begin') { inRequest = true; sawUsage = false; }
      if (m.type !== 'session_meta' && m.payload.type === 'request_end') inRequest = false;
      if (inRequest && m.type === 'event_msg' && m.payload.type === 'token_usage') sawUsage = true;
      else if (inRequest && sawUsage && m.type === 'model_msg') expect(m.payload.type).toMatch(/tool_call_output/);
    }
  });

  test('request_end is completed exactly for the requests the model committed', async () => {
    const r = await rig(dirs, { script: [turn.fail('timeout', 'socket hang up', textStream('par')), turn.tools([{ name: 'a', id: 'c1' }]), turn.fail('malformed'), turn.text('ok')], tools: { a: {} } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    const ends = ofType(msgs, 'request_end').map((m) => payload<{ status: string }>(m).status);
    expect(ends).toEqual(['timeout', 'completed', 'malformed', 'completed']);
    // The model's history holds exactly the two completed requests' inputs and outputs.
    const h = r.models.current.history;
    expect(h.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call')).toHaveLength(1);
    expect(h.filter((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'assistant').map((m) => payload(m).text)).toEqual(['ok']);
    expect(h.filter((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'user').map((m) => payload(m).text)).toEqual(['go', '[turn_retried]\n[text]\npar\n[/text]\n[/turn_retried]']);
  });

  test('stream order equals trace order (the trace read back holds the traceable stream in the same order)', async () => {
    const r = await rig(dirs, {
      script: [turn.tools([{ name: 'slow', id: 'c1' }, { name: 'fast', id: 'c2' }], { text: 'calling' }), turn.text('done')],
      tools: { slow: { chunks: ['s'] }, fast: { chunks: ['f'] } },
    });
    r.env.connectEvents = [b.mcpConnectBegin(['x']), b.mcpConnectEnd('completed', [{ server: 'x', transport: 'stdio', status: 'completed', duration_ms: 3, tools: 0 }])];
    r.env.tools.slow.before = () => r.env.whenDone('c2');
    const input = user('go');
    const msgs = await collect(r.engine.run([input], { approve: allow }));
    const trace = await r.trace();
    expect(trace[0].type).toBe('session_meta');
    expect(trace[1]).toEqual(input);
    expect(trace.slice(2)).toEqual(msgs.filter(isTraceable).map((m) => JSON.parse(JSON.stringify(m))));
    expect(types(msgs).slice(0, 3)).toEqual(['mcp_connect_begin', 'mcp_connect_end', 'tool_list_ready']);
  });

  test('a tool output may arrive after request_end: request_end does not wait for tools', async () => {
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const r = await rig(dirs, { script: [turn.tools([{ name: 'late', id: 'c1' }]), turn.text('ok')], tools: { late: { before: () => gate } } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }), (m) => {
      if (m.type === 'event_msg' && m.payload.type === 'request_end') release();
    });
    const firstEnd = msgs.findIndex((m) => m.type === 'event_msg' && m.payload.type === 'request_end');
    const out = msgs.findIndex((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output');
    expect(out).toBeGreaterThan(firstEnd);
    assertStreamDiscipline(msgs);
  });

  test('outputs are fed to the next request in original call order even when tools finish in reverse', async () => {
    const r = await rig(dirs, { script: [turn.tools([{ name: 't', id: 'c1' }, { name: 't', id: 'c2' }, { name: 't', id: 'c3' }]), turn.text('ok')], tools: { t: {} } });
    r.env.tools.t.before = async (ctx) => {
      if (ctx.toolCallId === 'c1') await r.env.whenDone('c2');
      if (ctx.toolCallId === 'c2') await r.env.whenDone('c3');
    };
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    expect(outputsOf(msgs).map((o) => o.tool_call_id)).toEqual(['c3', 'c2', 'c1']);
    const second = r.models.requests[1].newMessages.map((m) => payload<{ tool_call_id?: string }>(m).tool_call_id);
    expect(second).toEqual(['c1', 'c2', 'c3']);
    expect(r.models.violations).toEqual([]);
  });

  test('thinkingLevel applies to every request of the run, retries included', async () => {
    const r = await rig(dirs, { script: [turn.fail('timeout'), turn.tools([{ name: 'a', id: 'c1' }]), turn.text('ok')], tools: { a: {} } });
    await collect(r.engine.run([user('go')], { approve: allow, thinkingLevel: 'high' }));
    expect(r.models.requests.map((q) => q.thinkingLevel)).toEqual(['high', 'high', 'high']);
  });

  test('a Task ends when a turn has no tool call and nothing is queued; input is traced, not echoed', async () => {
    const r = await rig(dirs, { script: [turn.text('hello')] });
    const msgs = await collect(r.engine.run([user('hi')]));
    expect(types(msgs)).toEqual(['tool_list_ready', 'request_begin', 'partial_text', 'partial_text', 'partial_text', 'text', 'token_usage', 'request_end']);
    expect(r.models.requests).toHaveLength(1);
    expect(r.engine.status).toBe('idle');
  });

  test('token_usage.session is the engine\'s running total across requests', async () => {
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }], { usage: { cache_write: 10, output: 5 } }), turn.text('ok', { usage: { cache_read: 10, cache_write: 3, output: 2 } })], tools: { a: {} } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    const u = ofType(msgs, 'token_usage').map((m) => payload<{ session: { total: number }; request: { total: number } }>(m));
    expect(u.map((x) => x.request.total)).toEqual([15, 15]);
    expect(u.map((x) => x.session.total)).toEqual([15, 30]);
    expect(r.engine.tokens.total).toBe(30);
  });

  test('a second run while one is active is refused synchronously with SessionBusyError; a dropped stream frees the slot', async () => {
    const r = await rig(dirs, { script: [turn.text('a'), turn.text('b')] });
    const s1 = r.engine.run([user('1')]);
    expect(() => r.engine.run([user('2')])).toThrow(/busy/);
    expect(r.engine.status).toBe('running');
    await s1.return(undefined);
    expect(r.engine.status).toBe('idle');
    const msgs = await collect(r.engine.run([user('3')]));
    expect(ofType(msgs, 'text').map((m) => payload(m).text)).toEqual(['a']);
  });

  test('toolCallStream helper produces a well-formed tool call', () => {
    assertStreamDiscipline(toolCallStream('x', 'id', { a: 1 }));
  });
});
