/** Every payload kind survives a JSON round trip and passes the runtime parser; guards narrow correctly. */
import * as b from '../../../src/core/omnimessage/builders';
import { isComplete, isPartial, isPayload, isTraceable, parseOmniMessage } from '../../../src/core/omnimessage/guards';
import { addCounts, estimateMessagesTokens, estimateTextTokens, zeroCounts } from '../../../src/core/omnimessage/tokens';
import { COMPLETE_TYPES, EVENT_TYPES, PARTIAL_TYPES, type OmniMessage } from '../../../src/core/omnimessage/types';

const counts = { cache_read: 1, cache_write: 2, output: 3, total: 6 };
const samples: OmniMessage[] = [
  b.sessionMeta({ session_id: 'session-2026-01-02-03-04-05-0123abcd', provider: 'deepseek', model_id: 'deepseek-v4-flash', model_context_window: 128000, system_prompt: 'sys', agent_state: '/a', workspace: '/w', source: 'schedule' }),
  b.text('user', 'hi', { sender: 'server' }),
  b.assistantText('hello', { stop_reason: 'completed', fidelity: { phase: 'final' } }),
  b.thinking('hmm', { fidelity: { reasoning_field: 'reasoning_content' } }),
  b.inlineThinking('AAAA', 'application/octet-stream'),
  b.toolCall({ name: 'exec_command', arguments: '{"cmd":"ls"}', tool_call_id: 'c1', stop_reason: 'completed' }),
  b.toolCallOutput({ output: 'ok', tool_call_id: 'c1', images: ['data:image/png;base64,AA=='], stop_reason: 'failed' }),
  b.imageUrl('https://example.com/a.png'),
  b.inlineData('user', 'AAAA', 'image/png'),
  b.partialText('delta', 'x'),
  b.partialThinking('stop', '', 'aborted'),
  b.partialToolCall('start', 'c2', 'read_file'),
  b.partialToolCallOutput('delta', 'c2', 'out', { images: ['data:image/png;base64,AA=='] }),
  b.requestBegin(),
  b.requestEnd('timeout', { error_message: '429', attempt: 2, retry_in_ms: 4000 }),
  b.tokenUsage(counts, counts),
  b.approvalDecision('forbidden', 'c1', 'rm-recursive-force'),
  b.abort('aborted by user'),
  b.compactionBegin('context', 'summarize', 1000, 3),
  b.compactionEnd('manual', 'discard', 'completed', { attempt: 1 }),
  b.subagent('session-2026-01-02-03-04-05-0123abce'),
  b.toolListReady([{ name: 'read_file', description: 'd', parameters: { type: 'object' } }]),
  b.mcpConnectBegin(['fs']),
  b.mcpConnectEnd('failed', [{ server: 'fs', transport: 'stdio', status: 'failed', duration_ms: 12, error: 'spawn ENOENT' }]),
  b.goalFinished('complete', 3, 1234),
];

describe('OmniMessage protocol', () => {
  it('has a sample for every payload type', () => {
    const seen = new Set(samples.filter((m) => m.type !== 'session_meta').map((m) => (m.payload as { type: string }).type));
    for (const t of [...COMPLETE_TYPES, ...PARTIAL_TYPES, ...EVENT_TYPES]) expect(seen).toContain(t);
  });

  it.each(samples.map((m) => [m.type === 'session_meta' ? 'session_meta' : m.payload.type, m]))('%s round-trips through JSON and the parser', (_t, m) => {
    const back = JSON.parse(JSON.stringify(m));
    expect(back).toEqual(m);
    const parsed = parseOmniMessage(back);
    expect(parsed).toEqual({ ok: true, message: m });
  });

  it('builders leave no undefined keys, so traces hold exactly the fields that were set', () => {
    const m = b.text('user', 'x');
    expect(Object.keys(m.payload).sort()).toEqual(['role', 'text', 'type']);
    expect(JSON.stringify(b.requestEnd('completed'))).not.toContain('attempt');
  });

  it('tool outputs are never empty', () => {
    const m = b.toolCallOutput({ output: '', tool_call_id: 'x' });
    expect(m.payload.output).toBe('[no output]');
  });

  it('rejects malformed values with an explanation', () => {
    expect(parseOmniMessage(null)).toEqual({ ok: false, error: 'expected an object, found null' });
    expect(parseOmniMessage({ timestamp: 't', type: 'model_msg', payload: { type: 'nope' } })).toMatchObject({ ok: false, error: expect.stringContaining('unknown model_msg type "nope"') });
    expect(parseOmniMessage({ timestamp: 't', type: 'model_msg', payload: { type: 'tool_call', name: 'x', arguments: {}, tool_call_id: 'i' } })).toMatchObject({ ok: false, error: 'payload.arguments: expected string, found object' });
    expect(parseOmniMessage({ timestamp: 't', type: 'event_msg', payload: { type: 'request_end', status: 'weird' } })).toMatchObject({ ok: false });
    expect(parseOmniMessage({ timestamp: 't', type: 'event_msg', payload: { type: 'request_end', status: 'completed', stop_reason: 'nah' } })).toMatchObject({ ok: false, error: expect.stringContaining('stop_reason') });
    expect(parseOmniMessage({ timestamp: 't', type: 'session_meta', payload: { session_id: 's' } })).toMatchObject({ ok: false, error: expect.stringContaining('payload.provider') });
    expect(parseOmniMessage({ timestamp: 't', type: 'other', payload: {} })).toMatchObject({ ok: false, error: expect.stringContaining('type: expected') });
    expect(parseOmniMessage({ timestamp: 't', type: 'model_msg', payload: { type: 'text', role: 'user', text: 'x' }, origin: [1] })).toMatchObject({ ok: false, error: 'origin: expected string[]' });
  });

  it('guards narrow by payload type', () => {
    const m: OmniMessage = samples[5];
    if (isPayload(m, 'tool_call')) expect(m.payload.arguments).toBe('{"cmd":"ls"}');
    else throw new Error('tool_call not recognised');
    expect(isPayload(samples[0], 'text')).toBe(false);
    expect(isPartial(samples[9])).toBe(true);
    expect(isComplete(samples[9])).toBe(false);
    expect(isComplete(samples[1])).toBe(true);
  });

  it('withOrigin prepends one hop and partials/origin messages are not traceable', () => {
    const inner = b.withOrigin(b.assistantText('x'), 'child-b');
    const outer = b.withOrigin(inner, 'child-a');
    expect(outer.origin).toEqual(['child-a', 'child-b']);
    expect(b.assistantText('x').origin).toBeUndefined();
    expect(isTraceable(outer)).toBe(false);
    expect(isTraceable(b.partialText('delta', 'x'))).toBe(false);
    expect(isTraceable(b.assistantText('x'))).toBe(true);
  });

  it('estimates tokens as ASCII/4 and one per non-ASCII character', () => {
    expect(estimateTextTokens('abcdefgh')).toBe(2);
    expect(estimateTextTokens('日本語')).toBe(3);
    expect(estimateTextTokens('😀')).toBe(1);
    expect(estimateMessagesTokens([b.userText('abcd'), b.imageUrl('https://x'), b.requestBegin()])).toBe(1 + 1600);
    expect(addCounts(counts, zeroCounts())).toEqual(counts);
  });

  it('timestamps are ISO-8601 UTC and the clock can be pinned', () => {
    b.setMessageClock(() => new Date('2026-01-01T00:00:00Z'));
    try {
      expect(b.userText('x').timestamp).toBe('2026-01-01T00:00:00.000Z');
    } finally {
      b.setMessageClock();
    }
    expect(b.userText('x').timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('each message has the time it was built, to the millisecond, however many are built at once', () => {
    let now = Date.UTC(2026, 0, 1);
    b.setMessageClock(() => new Date(now));
    try {
      const first = [b.userText('a'), b.userText('b')].map((m) => m.timestamp);
      now += 1;
      const next = b.userText('c').timestamp;
      now += 3_600_000;
      const later = b.userText('d').timestamp;
      expect(first).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']);
      expect([next, later]).toEqual(['2026-01-01T00:00:00.001Z', '2026-01-01T01:00:00.001Z']);
    } finally {
      b.setMessageClock();
    }
  });
});
