/**
 * Abort and carry-over (engine.md §2.2.3, §2.4, §2.6): case A (model completed, tools interrupted), case B
 * (model incomplete), an already-aborted signal, and max_turns; `abort` is the last message with the
 * spec's reason, carry-over is resent first on the next run and never traced.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import type { ApproveFn } from '../../../src/core/interfaces';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { textStream, turn } from '../../fakes/scripted-llm';
import { collect, ofType, payload, rig, TempDirs, types, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const allow: ApproveFn = async () => 'allow';
const texts = (msgs: OmniMessage[]) => msgs.map((m) => payload<{ text?: string; output?: string }>(m).text ?? payload<{ output?: string }>(m).output);

describe('carry-over', () => {
  test('case A: the model completed, a tool was interrupted ⇒ real outputs + placeholders, in call order, resent first', async () => {
    const ac = new AbortController();
    const r = await rig(dirs, { script: [turn.tools([{ name: 'quick', id: 'c1' }, { name: 'stuck', id: 'c2' }]), turn.text('resumed')], tools: { quick: { chunks: ['q'] }, stuck: { hang: true, chunks: ['working'] } } });
    const msgs = await collect(r.engine.run([user('go')], { signal: ac.signal, approve: allow }), (m) => {
      if (m.type === 'model_msg' && m.payload.type === 'tool_call_output' && m.payload.tool_call_id === 'c1') ac.abort();
    });
    assertStreamDiscipline(msgs);
    expect(msgs.at(-1)).toMatchObject({ type: 'event_msg', payload: { type: 'abort', reason: 'aborted by user' } });
    const stuck = ofType(msgs, 'tool_call_output').map((m) => payload(m)).find((p) => p.tool_call_id === 'c2');
    expect(stuck).toMatchObject({ stop_reason: 'aborted' });

    const next = await collect(r.engine.run([user('continue')], { approve: allow }));
    assertStreamDiscipline(next);
    const resent = r.models.requests[1].newMessages;
    expect(resent.map((m) => payload(m).tool_call_id ?? payload(m).text)).toEqual(['c1', 'c2', 'continue']);
    expect(r.models.violations).toEqual([]);
    // carry-over is not traced a second time
    const trace = await r.trace();
    expect(trace.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output')).toHaveLength(2);
  });

  test('case A with a call never approved (abort while the host decides) gets the interrupted placeholder', async () => {
    const ac = new AbortController();
    const approve: ApproveFn = () => {
      ac.abort();
      return new Promise(() => undefined); // a host that never answers
    };
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.text('ok')], tools: { a: {} } });
    const msgs = await collect(r.engine.run([user('go')], { signal: ac.signal, approve }));
    expect(ofType(msgs, 'approval_decision')).toHaveLength(0);
    expect(payload(msgs.at(-1)!).reason).toBe('aborted by user');
    await collect(r.engine.run([user('next')]));
    expect(texts(r.models.requests[1].newMessages)).toEqual(['[interrupted: tool aborted by user]', 'next']);
    expect(r.models.violations).toEqual([]);
  });

  test('case B: the model was cut off ⇒ input tool outputs kept, everything else flattened into one [turn_aborted] text', async () => {
    const ac = new AbortController();
    const r = await rig(dirs, {
      script: [turn.tools([{ name: 'a', id: 'c1' }]), { ...turn.hangText('Let me th'), messages: [...textStream('first part'), ...turn.hangText('Let me th').messages!] }, turn.text('ok')],
      tools: { a: { chunks: ['A-out'] } },
    });
    const msgs = await collect(r.engine.run([user('go')], { signal: ac.signal, approve: allow }), (m) => {
      if (m.type === 'model_msg' && m.payload.type === 'partial_text' && m.payload.text === 'Let me th') ac.abort();
    });
    assertStreamDiscipline(msgs);
    expect(payload(msgs.at(-1)!).reason).toBe('aborted by user');
    await collect(r.engine.run([user('new')], { approve: allow }));
    const resent = r.models.requests[2].newMessages;
    expect(resent).toHaveLength(3);
    expect(payload(resent[0])).toMatchObject({ type: 'tool_call_output', tool_call_id: 'c1', output: 'A-out' });
    expect(payload(resent[1]).text).toBe('[turn_aborted]\n[text]\nfirst part\n[/text]\n[text]\nLet me th\n[/text]\n[/turn_aborted]');
    expect(payload(resent[2]).text).toBe('new');
    expect(r.models.violations).toEqual([]);
  });

  test('case B twice: a carried [turn_aborted] input is unwrapped, never nested', async () => {
    const ac1 = new AbortController();
    const ac2 = new AbortController();
    const r = await rig(dirs, { script: [turn.hangText('one'), turn.hangText('two'), turn.text('ok')] });
    await collect(r.engine.run([user('q1')], { signal: ac1.signal }), (m) => { if (m.type === 'model_msg' && m.payload.type === 'partial_text' && m.payload.event_type === 'delta') ac1.abort(); });
    await collect(r.engine.run([user('q2')], { signal: ac2.signal }), (m) => { if (m.type === 'model_msg' && m.payload.type === 'partial_text' && m.payload.event_type === 'delta') ac2.abort(); });
    await collect(r.engine.run([user('q3')]));
    const carried = payload(r.models.requests[2].newMessages[0]).text as string;
    expect(carried).toBe('[turn_aborted]\n[user_input]\nq1\n[/user_input]\n[text]\none\n[/text]\n[user_input]\nq2\n[/user_input]\n[text]\ntwo\n[/text]\n[/turn_aborted]');
    expect(carried.match(/\[turn_aborted\]/g)).toHaveLength(1);
  });

  test('an already-aborted signal keeps the whole input as carry-over and ends with abort', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await rig(dirs, { script: [turn.text('ok')] });
    const msgs = await collect(r.engine.run([user('lost?')], { signal: ac.signal }));
    expect(types(msgs)).toEqual(['tool_list_ready', 'abort']);
    expect(r.models.requests).toHaveLength(0);
    await collect(r.engine.run([user('now')]));
    expect(texts(r.models.requests[0].newMessages)).toEqual(['lost?', 'now']);
  });

  test('max_turns: the pending input becomes carry-over and the run ends with a failed assistant text, no abort', async () => {
    const r = await rig(dirs, { engine: { maxTurns: 2 }, script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.tools([{ name: 'a', id: 'c2' }]), turn.text('ok')], tools: { a: { chunks: ['x'] } } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    assertStreamDiscipline(msgs);
    expect(ofType(msgs, 'abort')).toHaveLength(0);
    expect(msgs.at(-1)).toMatchObject({ type: 'model_msg', payload: { type: 'text', role: 'assistant', text: '[reached max turns (2); stopping]', stop_reason: 'failed' } });
    expect(r.models.requests).toHaveLength(2);
    await collect(r.engine.run([user('more')], { approve: allow }));
    expect(texts(r.models.requests[2].newMessages)).toEqual(['x', 'more']);
    expect(r.models.violations).toEqual([]);
  });

  test('a consumer that stops reading mid-turn aborts the work and keeps the pairing for the next run', async () => {
    const r = await rig(dirs, { script: [turn.tools([{ name: 'slow', id: 'c1' }]), turn.text('ok')], tools: { slow: { hang: true } } });
    const gen = r.engine.run([user('go')], { approve: allow });
    for await (const m of gen) if (m.type === 'model_msg' && m.payload.type === 'partial_tool_call_output') break;
    expect(r.engine.status).toBe('idle');
    await collect(r.engine.run([user('again')], { approve: allow }));
    expect(r.models.violations).toEqual([]);
    expect(texts(r.models.requests[1].newMessages)).toEqual(['[interrupted: tool aborted by user]', 'again']);
  });
});
