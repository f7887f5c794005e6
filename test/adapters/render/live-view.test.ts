/**
 * Live view: the fold of a Task stream (answer, tool lines and outcomes, subagents, retries, compaction,
 * abort/auth/max turns, usage and cost) and its rendering as status line + tool lines + answer.
 */
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { answerLength, answerText, emptyLiveView, foldAll, foldLiveView, type LiveInput } from '../../../src/adapters/render/live-view';
import { liveReplyMarkdown, renderLiveReply, statusLine, toolLines, usageLine } from '../../../src/adapters/render/live-reply';
import { costUsd, formatDuration } from '../../../src/adapters/render/cost';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import { textSegment, thinkingSegment, toolCallSegment, toolOutput, usage } from '../helpers/streams';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
beforeAll(() => b.setMessageClock(() => new Date(T0)));
afterAll(() => b.setMessageClock());

function run(msgs: OmniMessage[], extra: LiveInput[] = []) {
  assertStreamDiscipline(msgs);
  return foldAll([...msgs, ...extra]);
}

describe('live view fold', () => {
  it('is pure: folding never mutates the previous view', () => {
    const v0 = emptyLiveView();
    const snapshot = JSON.stringify(v0);
    const v1 = foldLiveView(v0, b.partialText('start'));
    const v2 = foldLiveView(v1, b.partialText('delta', 'hi'));
    expect(JSON.stringify(v0)).toBe(snapshot);
    expect(answerText(v1)).toBe('');
    expect(answerText(v2)).toBe('hi');
  });

  it('builds the answer from deltas and replaces partials with the complete message', () => {
    const msgs = [b.requestBegin(), ...thinkingSegment(['let me think']), ...textSegment(['Hel', 'lo ', 'world'])];
    const mid = foldAll(msgs.slice(0, 7));
    expect(answerText(mid)).toBe('Hel');
    expect(statusLine(mid)).toBe('✍️ writing…');
    const v = run(msgs);
    expect(answerText(v)).toBe('Hello world');
    expect(v.segments).toEqual([{ text: 'Hello world', request: 1, open: false }]);
    expect(JSON.stringify(v)).not.toContain('let me think');
  });

  it('shows thinking… before any text, and never the thinking text', () => {
    const v = run([b.requestBegin(), ...thinkingSegment(['secret plan'])]);
    expect(statusLine(v)).toBe('💭 thinking…');
    expect(liveReplyMarkdown(renderLiveReply(v))).not.toContain('secret plan');
  });

  it('joins the texts of several turns with a blank line', () => {
    const msgs = [
      b.requestBegin(), ...textSegment(['First I look.']), ...toolCallSegment('c1', 'read_file', { description: 'Read the config', file_path: 'a.yaml' }),
      b.tokenUsage(usage(100), usage(100)), b.requestEnd('completed'), b.approvalDecision('allow', 'c1'), ...toolOutput('c1', '1\tkey: v'),
      b.requestBegin(), ...textSegment(['Done: key is v.']), b.tokenUsage(usage(250), usage(150)), b.requestEnd('completed'),
    ];
    const v = run(msgs, [{ kind: 'task_finished', at: T0 + 12_300 }]);
    expect(answerText(v)).toBe('First I look.\n\nDone: key is v.');
    expect(toolLines(v)).toEqual(['✅ `read_file`: Read the config']);
    // a normal finish shows no status line; tokens, cost and duration are the optional footer's
    expect(statusLine(v)).toBe('');
    expect(usageLine(v, { cache_read: 0.1, cache_write: 1, output: 4 })).toBe('250 tokens · $0.0004 · 12.3 s');
    expect(renderLiveReply(v).footer).toBeUndefined();
    expect(renderLiveReply(v, { usageFooter: true, pricing: { cache_read: 0.1, cache_write: 1, output: 4 } }).footer).toBe('_250 tokens · $0.0004 · 12.3 s_');
  });

  it('attaches outputs by tool_call_id, not by arrival order, even when an output arrives first', () => {
    const msgs = [
      b.requestBegin(),
      ...toolCallSegment('a', 'exec_command', { description: 'Build', cmd: 'make' }),
      ...toolCallSegment('b', 'exec_command', { description: 'Lint', cmd: 'make lint' }),
      b.requestEnd('completed'),
      b.approvalDecision('allow', 'a'),
      b.approvalDecision('allow', 'b'),
      ...toolOutput('b', 'lint ok'),
      ...toolOutput('a', 'error: missing header\n[exit code: 2]', 'failed'),
    ];
    const v = run(msgs);
    expect(toolLines(v)).toEqual(['❌ `exec_command`: Build — exit code 2', '✅ `exec_command`: Lint']);
    // an output folded before its call (out-of-order transport) is kept and attached when the call shows up
    const early = foldAll([b.toolCallOutput({ output: 'x\n[tool timeout: exceeded 120000ms]', tool_call_id: 'z', stop_reason: 'failed' }), ...toolCallSegment('z', 'exec_command', { cmd: 'sleep 999' })]);
    expect(toolLines(early)).toEqual(['❌ `exec_command` — timed out']);
  });

  it('shows denials, policy vetoes and interrupted calls with ⛔', () => {
    const msgs = [
      b.requestBegin(),
      ...toolCallSegment('d', 'write_file', { description: 'Write notes', file_path: 'n.md', content: 'x' }),
      ...toolCallSegment('f', 'exec_command', { description: 'Wipe', cmd: 'rm -rf /' }),
      ...toolCallSegment('i', 'exec_command', { description: 'Half', cmd: 'ls' }, 2, 'aborted'),
      b.requestEnd('completed'),
      b.approvalDecision('deny', 'd'),
      ...toolOutput('d', 'Tool call denied by user.', 'aborted'),
      b.approvalDecision('forbidden', 'f', 'rm-recursive-force'),
      ...toolOutput('f', 'Tool call denied by policy.', 'aborted'),
    ];
    expect(toolLines(run(msgs))).toEqual(['⛔ `write_file`: Write notes — denied', '⛔ `exec_command`: Wipe — forbidden by policy', '⛔ `exec_command`: Half — interrupted']);
  });

  it('reports running tools and pending approvals in the status line', () => {
    const call = [b.requestBegin(), ...toolCallSegment('x', 'exec_command', { description: 'Run the tests', cmd: 'npm test' })];
    const pending = run(call, [{ kind: 'approval_pending', toolCallId: 'x' }]);
    expect(statusLine(pending)).toBe('✋ waiting for approval');
    expect(toolLines(pending)).toEqual(['✋ `exec_command`: Run the tests']);
    const running = foldAll([b.approvalDecision('allow', 'x')], pending);
    expect(statusLine(running)).toBe('⚙️ running `exec_command`: Run the tests');
    expect(toolLines(running)).toEqual(['⚙️ `exec_command`: Run the tests']);
  });

  it('drops the text of an attempt the engine retries and shows the countdown', () => {
    const msgs = [
      b.requestBegin(), ...textSegment(['Partial answ'], 'timeout'), b.requestEnd('timeout', { error_message: 'idle timeout', attempt: 1, retry_in_ms: 2000 }),
    ];
    const waiting = run(msgs);
    expect(answerText(waiting)).toBe('');
    expect(statusLine(waiting)).toBe('🔁 retrying in 2 s (attempt 2)');
    const retried = foldAll([b.requestBegin(), ...textSegment(['Full answer.']), b.requestEnd('completed')], waiting);
    expect(answerText(retried)).toBe('Full answer.');
    expect(statusLine(retried)).toBe('✍️ writing…');
  });

  it('keeps the compaction summary out of the answer and shows compacting', () => {
    const v = run([b.compactionBegin('context', 'summarize', 200000, 12), b.requestBegin(), ...textSegment(['[summary]\nold stuff\n[/summary]'])]);
    expect(statusLine(v)).toBe('🗜️ compacting the context…');
    expect(answerText(v)).toBe('');
    const after = foldAll([b.compactionEnd('context', 'summarize', 'completed'), b.requestBegin(), ...textSegment(['Answer.'])], v);
    expect(answerText(after)).toBe('Answer.');
  });

  it('ends with abort reasons, auth problems and max turns', () => {
    expect(statusLine(run([b.requestBegin(), ...textSegment(['Hal'], 'aborted'), b.requestEnd('aborted'), b.abort('aborted by user')]))).toBe('⛔ aborted: aborted by user');
    const auth = run([b.requestBegin(), b.requestEnd('auth', { error_message: '401 invalid key' }), b.abort('llm request error: 401 invalid key')]);
    expect(statusLine(auth)).toBe('🔑 auth problem: the model key was rejected — tell the operator');
    const turns = run([b.requestBegin(), ...textSegment(['ok']), b.requestEnd('completed'), b.assistantText('[reached max turns (3); stopping]', { stop_reason: 'failed' })]);
    expect(statusLine(turns)).toBe('⏹️ stopped: reached max turns (3)');
    expect(answerText(turns)).toBe('ok');
  });

  it('collapses a subagent under its run_subagent call and never merges its text into the answer', () => {
    const child = 'session-2026-01-01-12-00-00-c0ffee00';
    const tag = (m: OmniMessage) => b.withOrigin(m, child);
    const main = [
      b.requestBegin(), ...textSegment(['Delegating.']),
      ...toolCallSegment('s1', 'run_subagent', { description: 'Survey the repo', prompt: 'look around' }),
      b.requestEnd('completed'), b.approvalDecision('allow', 's1'),
    ];
    const childMsgs = [
      b.requestBegin(), ...toolCallSegment('k1', 'exec_command', { description: 'List files', cmd: 'ls' }),
      b.tokenUsage(usage(40), usage(40)), b.requestEnd('completed'), b.approvalDecision('allow', 'k1'),
    ].map(tag);
    const v = run([...main, b.sessionMeta({ session_id: child, provider: 'p', model_id: 'm', model_context_window: 1000, system_prompt: '', agent_state: '/a', workspace: '/w', source: 'subagent' }), ...childMsgs]);
    expect(toolLines(v)).toEqual(['⚙️ `run_subagent`: Survey the repo', '↳ subagent · 1 tool · ⚙️ `exec_command`: List files']);
    const more = foldAll([...textSegment(['The repo has 3 files.']).map(tag), ...toolOutput('s1', 'The repo has 3 files.')], v);
    expect(answerText(more)).toBe('Delegating.');
    expect(toolLines(more)).toEqual(['✅ `run_subagent`: Survey the repo', '↳ subagent · 1 tool · The repo has 3 files.']);
    expect(more.usage.total).toBe(40);
    // approvals asked by the subagent show as waiting
    const asking = foldAll([{ kind: 'approval_pending', toolCallId: 'k1', origin: [child] }], v);
    expect(statusLine(asking)).toBe('✋ waiting for approval');
  });

  it('summarises old tool lines and keeps header lines single-line and escaped', () => {
    const msgs: OmniMessage[] = [b.requestBegin()];
    for (let i = 0; i < 12; i++) msgs.push(...toolCallSegment(`t${i}`, 'read_file', { description: `Read *file* ${i}\nsecond line`, file_path: `f${i}` }), b.approvalDecision('allow', `t${i}`), ...toolOutput(`t${i}`, 'ok'));
    const lines = toolLines(run(msgs), { maxToolLines: 4 });
    expect(lines).toEqual([
      '… 9 earlier tool calls (9 ✅)',
      '✅ `read_file`: Read \\*file\\* 9 second line',
      '✅ `read_file`: Read \\*file\\* 10 second line',
      '✅ `read_file`: Read \\*file\\* 11 second line',
    ]);
  });

  it('offers Stop while running and drops it when done', () => {
    const running = run([b.requestBegin(), ...textSegment(['Hi'])]);
    expect(renderLiveReply(running, { stopPayload: 's:t1' }).buttons).toEqual([{ label: 'Stop', payload: 's:t1', style: 'danger' }]);
    const done = foldLiveView(running, { kind: 'task_finished', at: T0 + 1000 });
    expect(renderLiveReply(done, { stopPayload: 's:t1' }).buttons).toBeUndefined();
    // the finished reply is the answer alone: the status line was live-only
    expect(liveReplyMarkdown(renderLiveReply(done))).toBe('Hi');
  });
});

describe('cost helpers', () => {
  it('prices tokens per million and formats durations', () => {
    expect(costUsd({ cache_read: 1_000_000, cache_write: 500_000, output: 100_000, total: 1_600_000 }, { cache_read: 0.1, cache_write: 1, output: 4 })).toBeCloseTo(1.0);
    expect(formatDuration(65_000)).toBe('1 min 5 s');
    expect(formatDuration(3_720_000)).toBe('1 h 2 min');
  });
});

test('answerLength is the answer text\'s length, blank segments aside, without building the text', () => {
  const v = foldAll([b.partialText('start', 'Hello'), b.partialText('delta', ', world'), b.assistantText('Hello, world'), b.requestBegin(), b.partialText('start', 'More — ✓')]);
  expect(answerLength(v)).toBe(answerText(v).length);
  const blank = foldAll([b.assistantText('A'), b.requestBegin(), b.partialText('start', '  ')]);
  expect(answerLength(blank)).toBeGreaterThanOrEqual(answerText(blank).length);
  expect(answerLength(emptyLiveView())).toBe(0);
});
