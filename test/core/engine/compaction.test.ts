/**
 * Compaction (engine.md §2.9, §5): context/turns/manual triggers, summarize at a Task boundary and
 * mid-Task, unusable summaries retried behind repairs and a correction, failures keeping the context,
 * discard mode, compactability, the effective threshold, and trace rotation to a new file headed by
 * session_meta + tool_list_ready.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import type { ApproveFn } from '../../../src/core/interfaces';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { resolveCompaction } from '../../../src/core/engine/compaction';
import { textStream, turn, type ScriptedTurn } from '../../fakes/scripted-llm';
import { collect, ofType, payload, rig, TempDirs, types, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const allow: ApproveFn = async () => 'allow';
const summaryTurn = (s: string, usage = 300): ScriptedTurn => ({ messages: textStream(`Here it is.\n[summary]\n${s}\n[/summary]`), usage: { total: usage } });
const prompt = 'Summarize the conversation so far.';
const texts = (msgs: OmniMessage[]) => msgs.map((m) => payload(m).text ?? payload(m).output);

describe('compaction', () => {
  test('summarize at a Task boundary: span streams the summary + usage, new model, summary prefixes the next run, trace rotates', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_context_length: 1000, prompt }, contextWindow: 128000 },
      script: [turn.text('answer', { usage: { total: 5000 } }), summaryTurn('We talked about X.'), turn.text('next answer')],
    });
    const msgs = await collect(r.engine.run([user('q1')], { thinkingLevel: 'high' }));
    assertStreamDiscipline(msgs);
    const span = types(msgs).slice(types(msgs).indexOf('compaction_begin'));
    expect(span).toEqual(['compaction_begin', 'partial_text', 'partial_text', 'partial_text', 'text', 'token_usage', 'compaction_end']);
    expect(payload(msgs[msgs.length - 7])).toEqual({ type: 'compaction_begin', reason: 'context', mode: 'summarize', context: 5000, turns: 1 });
    expect(payload(msgs.at(-1)!)).toEqual({ type: 'compaction_end', reason: 'context', mode: 'summarize', status: 'completed', attempt: 1 });
    expect(r.models.requests[1]).toMatchObject({ llm: 0 });
    expect(r.models.requests[1].thinkingLevel).toBeUndefined();
    expect(texts(r.models.requests[1].newMessages)).toEqual([prompt]);
    expect(r.models.created).toHaveLength(2);
    expect(r.engine.compactability()).toBe('just_compacted');

    const next = await collect(r.engine.run([user('q2')]));
    expect(r.models.requests[2].llm).toBe(1);
    expect(texts(r.models.requests[2].newMessages)).toEqual(['[context_summary]\nWe talked about X.\n[/context_summary]', 'q2']);
    expect(payload(ofType(next, 'token_usage')[0]).session).toMatchObject({ total: 5000 + 300 + 100 });
    expect(r.engine.compactability()).toBe('ok');

    const files = await r.traceFiles();
    expect(files).toHaveLength(2);
    expect(types(files[0]).slice(-4)).toEqual(['text', 'token_usage', 'request_end', 'compaction_end']);
    expect(types(files[0])).toContain('compaction_begin');
    expect(types(files[1]).slice(0, 4)).toEqual(['session_meta', 'tool_list_ready', 'text', 'text']);
    expect(payload(files[1][2]).text).toMatch(/^\[context_summary\]/);
  });

  test('summarize mid-Task folds the outputs into the request and continues on the new model with the summary as input', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_session_turns: 1, prompt } },
      tools: { a: { chunks: ['A'] } },
      script: [turn.tools([{ name: 'a', id: 'c1' }]), summaryTurn('did a'), turn.text('final'), summaryTurn('all done')],
    });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    assertStreamDiscipline(msgs);
    expect(ofType(msgs, 'abort')).toHaveLength(0);
    expect(texts(r.models.requests[1].newMessages)).toEqual(['A', prompt]);
    expect(r.models.requests[2].llm).toBe(1);
    expect(texts(r.models.requests[2].newMessages)).toEqual(['[context_summary]\ndid a\n[/context_summary]']);
    expect(ofType(msgs, 'compaction_end').map((m) => payload(m).reason)).toEqual(['turns', 'turns']);
    expect(r.models.created).toHaveLength(3);
    expect(r.models.violations).toEqual([]);
  });

  test('an unusable summary (tool calls, then empty) is retried on the ladder behind failed repairs and a correction', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_session_turns: 1, prompt } },
      script: [turn.text('hi'), turn.tools([{ name: 'a', id: 'k1' }]), { messages: textStream('[summary]  [/summary]') }, summaryTurn('real')],
    });
    const msgs = await collect(r.engine.run([user('go')]));
    assertStreamDiscipline(msgs);
    expect(r.clock.sleeps).toEqual([2000, 4000]);
    const [, , second, third] = r.models.requests.map((q) => q.newMessages);
    expect(second.map((m) => payload(m).type)).toEqual(['tool_call_output', 'text', 'text']);
    expect(payload(second[0])).toMatchObject({ tool_call_id: 'k1', stop_reason: 'failed' });
    expect(payload(second[2]).text).toBe(prompt);
    expect(texts(third)[1]).toBe(prompt);
    expect(third).toHaveLength(2);
    expect(payload(msgs.at(-1)!)).toMatchObject({ type: 'compaction_end', status: 'completed', attempt: 3 });
    expect(r.env.calls).toHaveLength(0);
    expect(r.models.violations).toEqual([]);
  });

  test('a failed compaction keeps the context: auth fails at once; at a boundary the Task just ends', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_context_length: 1000, prompt } },
      script: [turn.text('answer', { usage: { total: 5000 } }), turn.fail('auth', 'key revoked'), turn.text('still here')],
    });
    const msgs = await collect(r.engine.run([user('q1')]));
    expect(payload(msgs.at(-1)!)).toEqual({ type: 'compaction_end', reason: 'context', mode: 'summarize', status: 'failed', attempt: 1, error_message: 'key revoked' });
    expect(ofType(msgs, 'abort')).toHaveLength(0);
    expect(r.clock.sleeps).toEqual([]);
    expect(r.models.created).toHaveLength(1);
    expect(r.engine.compactability()).toBe('ok');
    expect((await r.traceFiles())).toHaveLength(1);
  });

  test('a failed compaction mid-Task ends with "compaction failed" and resends the uncommitted outputs next run', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_session_turns: 1, prompt } },
      tools: { a: { chunks: ['A'] } },
      script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.fail('auth', 'nope'), turn.text('carried on'), summaryTurn('ok')],
    });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    expect(payload(msgs.at(-1)!)).toEqual({ type: 'abort', reason: 'compaction failed' });
    await collect(r.engine.run([user('again')]));
    expect(texts(r.models.requests[2].newMessages)).toEqual(['A', 'again']);
    expect(r.models.requests[2].llm).toBe(0);
    expect(r.models.violations).toEqual([]);
  });

  test('an abort during a mid-Task compaction ends with "aborted during compaction"', async () => {
    const ac = new AbortController();
    const r = await rig(dirs, {
      engine: { compaction: { max_session_turns: 1, prompt } },
      tools: { a: {} },
      script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.hangText('[summary] par')],
    });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow, signal: ac.signal }), (m) => {
      if (m.type === 'model_msg' && m.payload.type === 'partial_text' && m.payload.event_type === 'delta') ac.abort();
    });
    assertStreamDiscipline(msgs);
    expect(types(msgs).slice(-2)).toEqual(['compaction_end', 'abort']);
    expect(payload(msgs.at(-2)!)).toMatchObject({ status: 'aborted' });
    expect(payload(msgs.at(-1)!).reason).toBe('aborted during compaction');
  });

  test('discard: only at a Task boundary (deferred while tools run), begin + end, new model, next run starts fresh, trace rotates', async () => {
    const r = await rig(dirs, {
      engine: { compaction: { max_session_turns: 1, mode: 'discard', prompt } },
      tools: { a: {} },
      script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.text('done'), turn.text('fresh')],
    });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    expect(types(msgs).slice(-2)).toEqual(['compaction_begin', 'compaction_end']);
    expect(payload(msgs.at(-2)!)).toEqual({ type: 'compaction_begin', reason: 'turns', mode: 'discard', context: 100, turns: 2 });
    expect(payload(msgs.at(-1)!)).toEqual({ type: 'compaction_end', reason: 'turns', mode: 'discard', status: 'completed' });
    await collect(r.engine.run([user('new topic')]));
    expect(r.models.requests[2]).toMatchObject({ llm: 1 });
    expect(texts(r.models.requests[2].newMessages)).toEqual(['new topic']);
    const files = await r.traceFiles();
    expect(files).toHaveLength(2);
    expect(types(files[1]).slice(0, 3)).toEqual(['session_meta', 'tool_list_ready', 'text']);
  });

  test('manual compaction and compactability: unsupported, empty, ok, just_compacted; not ok ⇒ no messages', async () => {
    const none = await rig(dirs, { script: [turn.text('a')] });
    expect(none.engine.compactability()).toBe('unsupported');
    expect(await collect(none.engine.compact())).toEqual([]);

    const r = await rig(dirs, { engine: { compaction: { prompt } }, script: [turn.text('a'), summaryTurn('short')] });
    expect(r.engine.compactability()).toBe('empty');
    expect(await collect(r.engine.compact())).toEqual([]);
    await collect(r.engine.run([user('hello')]));
    expect(r.engine.compactability()).toBe('ok');
    const c = r.engine.compact();
    expect(r.engine.status).toBe('compacting');
    expect(() => r.engine.run([user('x')])).toThrow(/busy \(compacting\)/);
    const msgs = await collect(c);
    expect(types(msgs)[0]).toBe('compaction_begin');
    expect(payload(msgs.at(-1)!)).toMatchObject({ type: 'compaction_end', reason: 'manual', status: 'completed' });
    expect(r.engine.status).toBe('idle');
    expect(r.engine.compactability()).toBe('just_compacted');
    expect(await collect(r.engine.compact())).toEqual([]);
  });

  test('the effective threshold is min(configured, window − 2048); no/invalid window assumes 128000', () => {
    expect(resolveCompaction({ prompt }, undefined).maxContextLength).toBe(125952);
    expect(resolveCompaction({ prompt }, 'not a number').maxContextLength).toBe(125952);
    expect(resolveCompaction({ prompt }, '200000').maxContextLength).toBe(197952);
    expect(resolveCompaction({ prompt, max_context_length: 50000 }, 1000000).maxContextLength).toBe(50000);
    expect(resolveCompaction({ prompt, max_context_length: -1 }, 1000000).maxContextLength).toBe(0);
    expect(resolveCompaction({ prompt }, 1000).maxContextLength).toBe(4096 - 2048);
  });
});
