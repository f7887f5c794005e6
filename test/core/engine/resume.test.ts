/**
 * Resume by positional replay (engine.md §5): a clean trace replays to exactly the history the live model
 * committed; a realistic messy session (tools, denial, retries, steering, notices, aborts A and B,
 * compaction) cut at every record boundary — and torn mid-line — never crashes and always yields a
 * provider-valid history plus carry-over that a strict model accepts; placeholders, dangling and
 * completed compactions follow steps 4–6.
 */
import { writeFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import * as b from '../../../src/core/omnimessage/builders';
import type { ApproveFn } from '../../../src/core/interfaces';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { ContextEngine } from '../../../src/core/engine/context-engine';
import { replayTrace, type ResumeState } from '../../../src/core/engine/replay';
import { parseTraceText, readLatestTrace } from '../../../src/core/trace/reader';
import { traceFilePath } from '../../../src/core/trace/paths';
import { TraceWriter } from '../../../src/core/trace/writer';
import { historyProblems, ScriptedModels, textStream, turn } from '../../fakes/scripted-llm';
import { FakeEnvironment } from '../../fakes/fake-environment';
import { collect, FakeClock, payload, rig, SESSION_ID, TempDirs, types, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const approve: ApproveFn = async (tc) => (tc.payload.name === 'danger' ? 'deny' : 'allow');
const prompt = 'Summarize.';

async function resumed(state: ResumeState, tracesDir: string, script = [turn.text('resumed fine')]) {
  const models = new ScriptedModels(script);
  const env = new FakeEnvironment({ a: {} });
  const writer = await TraceWriter.resume(tracesDir, SESSION_ID);
  const meta = b.sessionMeta({ session_id: SESSION_ID, provider: 'fake', model_id: 'scripted', model_context_window: 128000, system_prompt: 's', agent_state: '/a', workspace: '/w' });
  const engine = new ContextEngine({ environment: env, models: () => models, trace: writer, sessionMeta: meta, clock: new FakeClock(), resume: state, compaction: { prompt } });
  return { engine, models, env };
}

/** A session touching every record kind the engine writes. */
async function messySession(): Promise<{ tracesDir: string; lines: string[] }> {
  const r = await rig(dirs, {
    engine: { compaction: { max_session_turns: 4, prompt } },
    tools: { a: { chunks: ['A1', 'A2'] }, danger: {}, stuck: { hang: true, chunks: ['partial'] }, slow: {} },
    script: [
      turn.tools([{ name: 'a', id: 'c1' }, { name: 'danger', id: 'c2' }], { thinking: 'plan', text: 'doing' }),
      turn.fail('timeout', 'blip', textStream('half')),
      turn.tools([{ name: 'slow', id: 'c3' }]),
      turn.text('answer one'),
      // run 2: case A abort (tool stuck)
      turn.tools([{ name: 'stuck', id: 'c4' }, { name: 'a', id: 'c5' }]),
      // run 3: case B abort (model cut)
      turn.hangText('thinking about'),
      // run 4: compaction at the boundary after 4 turns in context, then more
      turn.text('answer four'),
      { messages: textStream('[summary]the story so far[/summary]') },
      // run 5: new context
      turn.tools([{ name: 'a', id: 'c6' }]),
      turn.text('answer five'),
    ],
  });
  r.env.tools.slow.before = async () => {
    r.engine.steer('please hurry');
    r.env.notify({ kind: 'command', id: 'proc-11111111', status: 'failed', label: 'make', detail: 'error 2' });
  };
  await collect(r.engine.run([user('q1')], { approve }));
  const ac2 = new AbortController();
  await collect(r.engine.run([user('q2')], { approve, signal: ac2.signal }), (m) => {
    if (m.type === 'model_msg' && m.payload.type === 'tool_call_output' && m.payload.tool_call_id === 'c5') ac2.abort();
  });
  const ac3 = new AbortController();
  await collect(r.engine.run([user('q3')], { approve, signal: ac3.signal }), (m) => {
    if (m.type === 'model_msg' && m.payload.type === 'partial_text' && m.payload.event_type === 'delta') ac3.abort();
  });
  const m4 = await collect(r.engine.run([user('q4')], { approve }));
  expect(types(m4)).toContain('compaction_end');
  await collect(r.engine.run([user('q5')], { approve }));
  expect(r.models.violations).toEqual([]);
  const files = await r.traceFiles();
  expect(files).toHaveLength(2);
  const text1 = await readFile(traceFilePath(r.tracesDir, SESSION_ID, 1), 'utf8');
  const text2 = await readFile(traceFilePath(r.tracesDir, SESSION_ID, 2), 'utf8');
  return { tracesDir: r.tracesDir, lines: [...text1.split('\n').filter(Boolean), '--rotate--', ...text2.split('\n').filter(Boolean)] };
}

describe('resume', () => {
  test('a clean trace replays to exactly the history the live model committed, with counters and totals', async () => {
    const r = await rig(dirs, {
      tools: { a: { chunks: ['out'] } },
      script: [turn.tools([{ name: 'a', id: 'c1' }, { name: 'a', id: 'c2' }], { thinking: 't', usage: { cache_write: 40, output: 10 } }), turn.fail('malformed'), turn.text('one', { usage: { total: 77 } }), turn.text('two', { usage: { total: 90 } })],
    });
    r.env.tools.a.before = async (ctx) => { if (ctx.toolCallId === 'c1') await r.env.whenDone('c2'); };
    await collect(r.engine.run([user('first')], { approve }));
    await collect(r.engine.run([user('second'), b.imageUrl('data:image/png;base64,AA')], { approve }));
    await r.engine.flush();
    const read = await readLatestTrace(r.tracesDir, SESSION_ID);
    if (!read.ok) throw new Error(read.error.message);
    const state = replayTrace(read.file.messages, { fileIndex: read.file.index });
    expect(JSON.parse(JSON.stringify(state.history))).toEqual(JSON.parse(JSON.stringify(r.models.current.history)));
    expect(state.carryOver).toEqual([]);
    expect(state.turnsInContext).toBe(3);
    expect(state.lastRequestTotal).toBe(90);
    expect(state.sessionTokens).toEqual(r.engine.tokens);
    expect(state.pendingSummary).toBeNull();
    expect(state.pendingRotation).toBe(false);
  });

  test('a realistic session cut at every record boundary (and torn mid-line) resumes without a crash into a valid context', async () => {
    const { lines } = await messySession();
    const rot = lines.indexOf('--rotate--');
    const file1 = lines.slice(0, rot);
    const file2 = lines.slice(rot + 1);
    const cuts: { files: string[][]; torn?: string }[] = [];
    for (let k = 1; k <= file1.length; k++) cuts.push({ files: [file1.slice(0, k)] });
    for (let k = 1; k <= file2.length; k++) cuts.push({ files: [file1, file2.slice(0, k)] });
    for (let k = 2; k <= file1.length; k += 5) cuts.push({ files: [file1.slice(0, k - 1)], torn: file1[k - 1].slice(0, Math.floor(file1[k - 1].length / 2)) });
    let resumedRuns = 0;
    for (const cut of cuts) {
      const dir = await dirs.make('pg-cut-');
      for (let i = 0; i < cut.files.length; i++) {
        const p = traceFilePath(dir, SESSION_ID, i + 1);
        await mkdir(dirname(p), { recursive: true });
        const isLast = i === cut.files.length - 1;
        await writeFile(p, cut.files[i].join('\n') + '\n' + (isLast && cut.torn ? cut.torn : ''));
      }
      const read = await readLatestTrace(dir, SESSION_ID);
      if (!read.ok) throw new Error(`cut ${cuts.indexOf(cut)}: ${read.error.message}`);
      const state = replayTrace(read.file.messages, { fileIndex: read.file.index });
      expect(historyProblems(state.history)).toEqual([]);
      const rz = await resumed(state, dir);
      const msgs = await collect(rz.engine.run([user('after resume')], { approve }));
      assertStreamDiscipline(msgs);
      expect(rz.models.violations).toEqual([]);
      expect(msgs.some((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.text === 'resumed fine')).toBe(true);
      resumedRuns++;
      await rz.engine.flush();
    }
    expect(resumedRuns).toBe(cuts.length);
    expect(cuts.length).toBeGreaterThan(60);

    // Spot checks of what specific cuts must produce.
    const stateAt = (fileLines: string[], index = 1): ResumeState => {
      const r = parseTraceText(fileLines.join('\n') + '\n', 'mem', index);
      if (!r.ok) throw new Error(r.error.message);
      return replayTrace(r.file.messages, { fileIndex: index });
    };
    const ids = (ms: OmniMessage[]) => ms.map((m) => payload(m).tool_call_id ?? payload(m).text);
    const aborts = file1.map((l, i) => (l.includes('"type":"abort"') ? i : -1)).filter((i) => i >= 0);
    const afterA = stateAt(file1.slice(0, aborts[0] + 1));
    expect(ids(afterA.carryOver)).toEqual(['c4', 'c5']);
    expect(payload(afterA.carryOver[0]).stop_reason).toBe('aborted');
    const afterB = stateAt(file1.slice(0, aborts[1] + 1));
    expect(ids(afterB.carryOver)).toEqual(['c4', 'c5', 'q3']);
    const endOfFile1 = stateAt(file1);
    expect(endOfFile1.history).toEqual([]);
    expect(payload(endOfFile1.pendingSummary!).text).toBe('[context_summary]\nthe story so far\n[/context_summary]');
    expect(endOfFile1.pendingRotation).toBe(true);
    const whole = stateAt(file2, 2);
    expect(ids(whole.history)).toEqual(['[context_summary]\nthe story so far\n[/context_summary]', 'q5', 'c6', 'c6', 'answer five']);
    expect(whole.carryOver).toEqual([]);
    expect(whole.turnsInContext).toBe(2);
  });

  test('unanswered committed calls get the exit placeholder in call order; strays are dropped; the carry-over is sent first', async () => {
    const c1 = b.toolCall({ name: 'a', arguments: '{}', tool_call_id: 'c1', stop_reason: 'completed' });
    const c2 = b.toolCall({ name: 'a', arguments: '{}', tool_call_id: 'c2', stop_reason: 'completed' });
    const recs: OmniMessage[] = [
      user('go'), b.requestBegin(), c1, c2, b.approvalDecision('allow', 'c1'), b.approvalDecision('allow', 'c2'),
      b.tokenUsage({ cache_read: 0, cache_write: 0, output: 0, total: 50 }, { cache_read: 0, cache_write: 0, output: 0, total: 50 }), b.requestEnd('completed'),
      b.toolCallOutput({ output: 'second done', tool_call_id: 'c2' }),
      b.toolCallOutput({ output: 'stray', tool_call_id: 'zz' }),
    ];
    const state = replayTrace(recs);
    expect(state.history.map((m) => payload(m).type)).toEqual(['text', 'tool_call', 'tool_call']);
    expect(state.carryOver.map((m) => payload(m))).toEqual([
      { type: 'tool_call_output', role: 'user', output: '[interrupted: process exited before the tool finished]', tool_call_id: 'c1', stop_reason: 'aborted' },
      { type: 'tool_call_output', role: 'user', output: 'second done', tool_call_id: 'c2' },
    ]);
    expect(state.turnsInContext).toBe(1);
    const dir = await dirs.make();
    const rz = await resumed(state, dir);
    await collect(rz.engine.run([user('next')]));
    expect(rz.models.requests[0].newMessages.map((m) => payload(m).tool_call_id ?? payload(m).text)).toEqual(['c1', 'c2', 'next']);
    expect(rz.models.violations).toEqual([]);
    expect(rz.models.created[0].historySet).toBe(1);
  });

  test('a non-completed request is dropped and its input re-pended; outputs of its calls do not survive', async () => {
    const recs: OmniMessage[] = [
      user('go'), b.requestBegin(), b.toolCall({ name: 'a', arguments: '{}', tool_call_id: 'c1', stop_reason: 'completed' }),
      b.toolCallOutput({ output: 'ran', tool_call_id: 'c1' }), b.requestEnd('timeout', { attempt: 1, retry_in_ms: 2000 }),
      b.requestBegin(), ...textStream('partial').slice(3),
    ];
    const state = replayTrace(recs);
    expect(state.history).toEqual([]);
    expect(state.carryOver.map((m) => payload(m).text)).toEqual(['go']);
  });

  test('a trace ending inside a compaction span: compaction_end(failed) is appended first, the span is ignored, outputs survive', async () => {
    const r = await rig(dirs, { tools: { a: { chunks: ['A'] } }, script: [turn.tools([{ name: 'a', id: 'c1' }])] });
    const gen = r.engine.run([user('go')], { approve });
    await collect(gen, () => undefined).catch(() => undefined);
    await r.engine.flush();
    const p = traceFilePath(r.tracesDir, SESSION_ID, 1);
    const existing = await readFile(p, 'utf8');
    // Cut right after the outputs and add a compaction span that never ended.
    const kept = existing.split('\n').filter(Boolean).filter((l) => !l.includes('"abort"') && !l.includes('script exhausted'));
    const lastEnd = kept.map((l) => l.includes('"request_end"')).lastIndexOf(true);
    const span = [b.compactionBegin('turns', 'summarize', 100, 1), b.userText(prompt), b.requestBegin(), b.assistantText('[summary]x')].map((m) => JSON.stringify(m));
    await writeFile(p, [...kept.slice(0, lastEnd + 1), ...kept.slice(lastEnd + 1).filter((l) => l.includes('tool_call_output')), ...span].join('\n') + '\n');
    const read = await readLatestTrace(r.tracesDir, SESSION_ID);
    if (!read.ok) throw new Error(read.error.message);
    const state = replayTrace(read.file.messages);
    expect(payload(state.closeDanglingCompaction!)).toMatchObject({ type: 'compaction_end', reason: 'turns', mode: 'summarize', status: 'failed' });
    expect(state.carryOver.map((m) => payload(m).output)).toEqual(['A']);
    expect(historyProblems(state.history)).toEqual([]);
  });

  test('a trace whose last record is a completed summarize: empty history, [context_summary] rebuilt, the next write rotates', async () => {
    const recs: OmniMessage[] = [
      user('go'), b.requestBegin(), b.assistantText('hello'), b.tokenUsage({ cache_read: 0, cache_write: 0, output: 0, total: 900 }, { cache_read: 0, cache_write: 0, output: 0, total: 900 }), b.requestEnd('completed'),
      b.compactionBegin('manual', 'summarize', 900, 1), b.userText(prompt),
      b.requestBegin(), b.assistantText('[summary]bad'), b.requestEnd('timeout', { attempt: 1 }),
      b.requestBegin(), b.assistantText('Sure.\n[summary]\nwe said hello\n[/summary]'),
      b.tokenUsage({ cache_read: 0, cache_write: 0, output: 0, total: 1200 }, { cache_read: 0, cache_write: 0, output: 0, total: 300 }), b.requestEnd('completed', { attempt: 2 }),
      b.compactionEnd('manual', 'summarize', 'completed', { attempt: 2 }),
    ];
    const state = replayTrace(recs);
    expect(state.history).toEqual([]);
    expect(payload(state.pendingSummary!).text).toBe('[context_summary]\nwe said hello\n[/context_summary]');
    expect(state.pendingRotation).toBe(true);
    expect(state.turnsInContext).toBe(0);
    expect(state.sessionTokens.total).toBe(1200);
    const dir = await dirs.make();
    const w = new TraceWriter({ tracesDir: dir, sessionId: SESSION_ID });
    await w.append(b.sessionMeta({ session_id: SESSION_ID, provider: 'fake', model_id: 'scripted', model_context_window: 1, system_prompt: 's', agent_state: '/a', workspace: '/w' }));
    const tools = b.toolListReady([{ name: 'a', description: 'tool a' }]);
    for (const m of [tools, ...recs]) await w.append(m);
    const read = await readLatestTrace(dir, SESSION_ID);
    if (!read.ok) throw new Error(read.error.message);
    const fromFile = replayTrace(read.file.messages, { fileIndex: read.file.index });
    expect(fromFile.pendingRotation).toBe(true);
    expect(fromFile.toolList).toEqual(tools);
    const rz = await resumed(fromFile, dir);
    expect(rz.engine.compactability()).toBe('just_compacted');
    await collect(rz.engine.run([user('continue')]));
    expect(rz.models.requests[0].newMessages.map((m) => payload(m).text)).toEqual(['[context_summary]\nwe said hello\n[/context_summary]', 'continue']);
    await rz.engine.flush();
    const second = await readLatestTrace(dir, SESSION_ID);
    expect(second.ok && second.file.index).toBe(2);
    if (second.ok) {
      expect(second.file.messages[0]).toEqual(tools);
      expect(payload(second.file.messages[1]).text).toMatch(/^\[context_summary\]/);
    }
  });

  test('replay never throws on junk-free but odd sequences', () => {
    const odd: OmniMessage[] = [b.requestEnd('completed'), b.toolCallOutput({ output: 'x', tool_call_id: 'q' }), b.compactionEnd('manual', 'discard', 'completed'), b.requestBegin(), b.requestBegin(), b.assistantText('a')];
    for (let k = 0; k <= odd.length; k++) expect(() => replayTrace(odd.slice(0, k))).not.toThrow();
    expect(parseTraceText('').ok).toBe(false);
  });
});
