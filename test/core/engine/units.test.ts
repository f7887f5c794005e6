/**
 * The engine's pure rules in isolation: the merge queue keeps each producer's stop + complete adjacent
 * under interleaving, approval verdicts, the reconnect ladder, transcript layout and unwrapping, goal
 * downgrade of carried input, and the background-notice text.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import type { ToolCallMessage } from '../../../src/core/interfaces';
import { MergeQueue } from '../../../src/core/engine/merge-queue';
import { decide } from '../../../src/core/engine/approval';
import { exhaustionReason, isRetryable, reconnectDelayMs } from '../../../src/core/engine/reconnect';
import { downgradeGoalText, transcribeInputs, unwrapTurnBlock } from '../../../src/core/engine/transcript';
import { noticeMessage } from '../../../src/core/engine/notices';
import { extractSummary } from '../../../src/core/engine/compaction';

const call = (name: string): ToolCallMessage => b.toolCall({ name, arguments: '{}', tool_call_id: 'x', stop_reason: 'completed' }) as ToolCallMessage;

describe('engine rules', () => {
  test('merge queue: another producer never lands between a stop and its complete message', async () => {
    const q = new MergeQueue();
    const a = q.open();
    const c = q.open();
    a.push(b.partialToolCallOutput('start', 'a'));
    a.push(b.partialToolCallOutput('delta', 'a', 'A'));
    a.push(b.partialToolCallOutput('stop', 'a'));
    c.push(b.partialToolCallOutput('start', 'c'));
    c.push(b.partialToolCallOutput('delta', 'c', 'C'));
    c.push(b.partialToolCallOutput('stop', 'c'));
    c.push(b.toolCallOutput({ output: 'C', tool_call_id: 'c' }));
    a.push(b.toolCallOutput({ output: 'A', tool_call_id: 'a' }));
    a.push(b.tokenUsage({ cache_read: 0, cache_write: 0, output: 0, total: 0 }, { cache_read: 0, cache_write: 0, output: 0, total: 0 }));
    c.close();
    a.push(b.requestEnd('completed'));
    a.close();
    const out: OmniMessage[] = [];
    for (let it = await q.next(); it; it = await q.next()) out.push(it.msg);
    assertStreamDiscipline(out);
    const t = out.map((m) => (m.type === 'session_meta' ? '' : m.payload.type));
    expect(t.slice(-2)).toEqual(['token_usage', 'request_end']);
    expect(out).toHaveLength(10);
  });

  test('approval: policy veto first, throwing policy forbids, bad answers deny', async () => {
    expect(await decide(call('rm'), async () => 'allow', () => ({ rule: 'r1' }))).toEqual({ decision: 'forbidden', policyRule: 'r1' });
    expect(await decide(call('rm'), async () => 'allow', () => { throw new Error('x'); })).toEqual({ decision: 'forbidden', policyRule: 'command_policy_error' });
    expect(await decide(call('rm'), async () => 'yes' as never)).toEqual({ decision: 'deny' });
    expect(await decide(call('rm'))).toEqual({ decision: 'deny' });
    expect(await decide(call('rm'), async () => 'forbidden')).toEqual({ decision: 'forbidden' });
  });

  test('reconnect ladder and classification', () => {
    expect([1, 2, 3, 4, 5, 6].map(reconnectDelayMs)).toEqual([2000, 4000, 8000, 16000, 30000, 30000]);
    expect(isRetryable({ status: 'failed' })).toBe(true);
    expect(isRetryable({ status: 'failed', permanent: true })).toBe(false);
    expect(isRetryable({ status: 'auth' })).toBe(false);
    expect(exhaustionReason({ status: 'failed' })).toBe('llm request failed after 5 retries: unknown error');
  });

  test('transcripts unwrap nested turn blocks and downgrade ended goal rounds', () => {
    const inner = '[text]\nhello\n[/text]';
    expect(unwrapTurnBlock(`[turn_retried]\n${inner}\n[/turn_retried]`)).toBe(inner);
    expect(unwrapTurnBlock('plain')).toBeUndefined();
    expect(transcribeInputs([b.userText(`[turn_aborted]\n${inner}\n[/turn_aborted]`), b.userText('next')])).toEqual([inner, '[user_input]\nnext\n[/user_input]']);
    expect(downgradeGoalText('[goal]\nround: 3\nWork toward the objective…\n[/goal]\n\nship it')).toBe('[earlier goal round 3; that goal has ended, do not pursue it]\nship it');
    expect(downgradeGoalText('no goal here')).toBe('no goal here');
  });

  test('summary extraction ladder', () => {
    expect(extractSummary('blah [summary]\n  the gist \n[/summary] trailing')).toBe('the gist');
    expect(extractSummary('[summary][/summary]\nreal notes')).toBe('real notes');
    expect(extractSummary('<summary>legacy</summary>')).toBe('legacy');
    expect(extractSummary('[summary] unclosed notes')).toBe('unclosed notes');
    expect(extractSummary('no tags at all')).toBe('no tags at all');
    expect(extractSummary('[summary]  [/summary]')).toBe('');
  });

  test('background notice text', () => {
    const m = noticeMessage({ kind: 'subagent', id: 'subagent-1234abcd', status: 'failed', label: 'a\nmultiline   label', detail: '' });
    expect(m).toMatchObject({ payload: { type: 'text', role: 'user', sender: 'harness', text: '[background_task_done]\nkind: subagent\nid: subagent-1234abcd\nstatus: failed\ndetail: a multiline label\n[/background_task_done]' } });
  });
});

describe('userAbortReason', () => {
  it("uses the host's string reason and falls back to the spec's text", () => {
    const { userAbortReason } = require('../../../src/core/engine/context-engine') as typeof import('../../../src/core/engine/context-engine');
    const host = new AbortController();
    host.abort('gateway shutting down');
    expect(userAbortReason(host.signal)).toBe('gateway shutting down');
    const plain = new AbortController();
    plain.abort();
    expect(userAbortReason(plain.signal)).toBe('aborted by user');
    const blank = new AbortController();
    blank.abort('  ');
    expect(userAbortReason(blank.signal)).toBe('aborted by user');
  });
});

describe('anySignal', () => {
  it('fires with the reason of the input that fired', () => {
    const { anySignal } = require('../../../src/core/engine/clock') as typeof import('../../../src/core/engine/clock');
    const a = new AbortController();
    const b = new AbortController();
    const linked = anySignal([a.signal, undefined, b.signal]);
    b.abort('second one');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('second one');
    const early = new AbortController();
    early.abort('already');
    expect(anySignal([early.signal]).signal.reason).toBe('already');
  });
});
