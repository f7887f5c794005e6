/**
 * GenerativeModel stream translation against the fake server, through the real SDK: text, reasoning in both
 * field names, parallel tool calls (sequential and interleaved fragments), usage mapping, finish_reason length.
 */
import * as b from '../../../src/core/omnimessage/builders';
import { isPayload } from '../../../src/core/omnimessage/guards';
import { reasoningChunks, stream, textChunks, toolCallChunks, finishChunk, usageChunk, turn } from '../../fakes/openai-server';
import { collect, shape, texts, toolCalls, usageOf } from './collect';
import { useFakeServer } from './fixture';

const { server, model } = useFakeServer();
const hi = () => [b.userText('hi')];

test('text streams as one segment, then token_usage last', async () => {
  server.enqueue(turn({ text: 'Hello there, friend!', size: 5 }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome).toEqual({ status: 'completed' });
  // Four pieces of five characters; pieces read at once are one delta (next test), so 1 to 4 deltas.
  const s = shape(msgs);
  expect(s[0]).toBe('partial_text:start');
  expect(s.slice(-3)).toEqual(['partial_text:stop', 'text', 'token_usage']);
  const deltas = msgs.slice(1, -3);
  expect(deltas.length).toBeGreaterThanOrEqual(1);
  expect(deltas.every((m) => isPayload(m, 'partial_text') && m.payload.event_type === 'delta')).toBe(true);
  expect(deltas.map((m) => (m.payload as { text: string }).text).join('')).toBe('Hello there, friend!');
  expect(texts(msgs)[0].payload).toMatchObject({ role: 'assistant', text: 'Hello there, friend!', stop_reason: 'completed' });
});

test('pieces that arrive together reach the consumer as one delta', async () => {
  server.enqueue(turn({ text: 'Hello there, friend!', size: 5 }, { together: true }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome).toEqual({ status: 'completed' });
  expect(shape(msgs)).toEqual(['partial_text:start', 'partial_text:delta', 'partial_text:stop', 'text', 'token_usage']);
  expect(msgs[1].payload).toMatchObject({ text: 'Hello there, friend!' });
});

test.each(['reasoning_content', 'reasoning'] as const)('reasoning via %s becomes thinking with its field recorded, then is replayed through it', async (field) => {
  server.enqueue(turn({ reasoning: 'Let me think.', reasoningField: field, text: 'Answer.' }), turn({ text: 'Again.' }));
  const m = model();
  const first = await collect(m.streamGenerate({ newMessages: hi() }));
  expect(first.outcome.status).toBe('completed');
  const thinking = first.msgs.filter((x) => isPayload(x, 'thinking'));
  expect(thinking).toHaveLength(1);
  expect(thinking[0].payload).toMatchObject({ thinking: 'Let me think.', fidelity: { reasoning_field: field } });
  // thinking closes before text starts
  const s = shape(first.msgs);
  expect(s.indexOf('thinking')).toBeLessThan(s.indexOf('partial_text:start'));

  await collect(m.streamGenerate({ newMessages: [b.userText('more')] }));
  const assistant = server.requests[1].body.messages.find((x: { role: string }) => x.role === 'assistant');
  expect(assistant).toEqual({ role: 'assistant', content: 'Answer.', [field]: 'Let me think.' });
});

test('a change of reasoning field splits the thinking block', async () => {
  server.enqueue(stream([...reasoningChunks('one ', { field: 'reasoning_content' }), ...reasoningChunks('two', { field: 'reasoning' }), ...textChunks('x'), finishChunk()]));
  const { msgs } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(msgs.filter((x) => isPayload(x, 'thinking')).map((x) => x.payload)).toEqual([
    expect.objectContaining({ thinking: 'one ', fidelity: { reasoning_field: 'reasoning_content' } }),
    expect.objectContaining({ thinking: 'two', fidelity: { reasoning_field: 'reasoning' } }),
  ]);
});

const calls = [
  { id: 'call_a', name: 'read_file', arguments: '{"file_path":"/tmp/a.txt","limit":10}' },
  { id: 'call_b', name: 'exec_command', arguments: '{"description":"list","cmd":"ls -la /tmp"}' },
];

test('two parallel tool calls with interleaved argument fragments come out as two whole, non-interleaved segments', async () => {
  server.enqueue(turn({ text: 'Doing both.', toolCalls: calls, interleave: true, size: 6 }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome.status).toBe('completed');
  const tc = toolCalls(msgs);
  expect(tc.map((m) => m.payload)).toEqual([
    expect.objectContaining({ name: 'read_file', tool_call_id: 'call_a', arguments: calls[0].arguments, stop_reason: 'completed' }),
    expect.objectContaining({ name: 'exec_command', tool_call_id: 'call_b', arguments: calls[1].arguments, stop_reason: 'completed' }),
  ]);
  // segments never interleave: every partial of call_a precedes the first partial of call_b
  const ids = msgs.filter((m) => isPayload(m, 'partial_tool_call')).map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
  expect(ids.lastIndexOf('call_a')).toBeLessThan(ids.indexOf('call_b'));
  // text closed before the first tool call started
  expect(shape(msgs).indexOf('text')).toBeLessThan(shape(msgs).indexOf('partial_tool_call:start'));
});

test('sequential tool calls: the first complete tool_call is emitted as soon as the next call starts', async () => {
  // Stall after the second call's head: the first call is already known complete then.
  const chunks = [...toolCallChunks(calls, { size: 8 }), finishChunk('tool_calls')];
  const secondHead = chunks.findIndex((c) => (c.choices[0].delta.tool_calls as { index: number }[] | undefined)?.[0]?.index === 1);
  server.enqueue(stream(chunks, { stallAfter: secondHead + 1 }));
  const ac = new AbortController();
  const { msgs, outcome } = await collect(model({ requestTimeoutMs: 5000 }).streamGenerate({ newMessages: hi(), signal: ac.signal }), (m) => {
    if (isPayload(m, 'partial_tool_call') && m.payload.event_type === 'start' && m.payload.tool_call_id === 'call_b') ac.abort();
  });
  expect(outcome.status).toBe('aborted');
  expect(toolCalls(msgs).map((m) => [m.payload.tool_call_id, m.payload.stop_reason])).toEqual([['call_a', 'completed'], ['call_b', 'aborted']]);
});

test('usage maps cached prompt tokens to cache_read and the rest to cache_write; session accumulates', async () => {
  server.enqueue(turn({ text: 'a', usage: { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 60 } }), turn({ text: 'b', usage: { prompt_tokens: 130, completion_tokens: 5, cached_tokens: 120 } }));
  const m = model({ sessionUsage: { cache_read: 1, cache_write: 2, output: 3, total: 6 } });
  const one = await collect(m.streamGenerate({ newMessages: hi() }));
  expect(one.msgs[one.msgs.length - 1]).toBe(usageOf(one.msgs));
  expect(usageOf(one.msgs)!.payload).toEqual({
    type: 'token_usage',
    request: { cache_read: 60, cache_write: 40, output: 20, total: 120 },
    session: { cache_read: 61, cache_write: 42, output: 23, total: 126 },
  });
  const two = await collect(m.streamGenerate({ newMessages: [b.userText('again')] }));
  expect(usageOf(two.msgs)!.payload.session).toEqual({ cache_read: 181, cache_write: 52, output: 28, total: 261 });
  expect(m.sessionUsage).toEqual({ cache_read: 181, cache_write: 52, output: 28, total: 261 });
});

test('a stream without a usage chunk still completes with zero request usage', async () => {
  server.enqueue(turn({ text: 'no usage', usage: null }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome.status).toBe('completed');
  expect(usageOf(msgs)!.payload.request).toEqual({ cache_read: 0, cache_write: 0, output: 0, total: 0 });
});

test('finish_reason length marks the last segment failed while the outcome stays completed', async () => {
  server.enqueue(turn({ reasoning: 'hmm', text: 'cut sho', finish: 'length' }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome.status).toBe('completed');
  expect(msgs.find((m) => isPayload(m, 'thinking'))!.payload).toMatchObject({ stop_reason: 'completed' });
  expect(texts(msgs)[0].payload).toMatchObject({ text: 'cut sho', stop_reason: 'failed' });
  expect(usageOf(msgs)).toBeDefined();
});

test('finish_reason length on a tool call with valid arguments marks only that call failed', async () => {
  server.enqueue(turn({ toolCalls: calls, finish: 'length' }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome.status).toBe('completed');
  expect(toolCalls(msgs).map((m) => m.payload.stop_reason)).toEqual(['completed', 'failed']);
});

test('content_filter counts as a normal stop', async () => {
  server.enqueue(turn({ text: 'partial answer', finish: 'content_filter' }));
  const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(outcome.status).toBe('completed');
  expect(texts(msgs)[0].payload.stop_reason).toBe('completed');
});

test('a refusal is streamed as assistant text', async () => {
  server.enqueue(stream([{ ...textChunks('x')[0], choices: [{ index: 0, delta: { refusal: 'I cannot help with that.' }, finish_reason: null }] }, finishChunk(), usageChunk({ prompt_tokens: 1, completion_tokens: 1 })]));
  const { msgs } = await collect(model().streamGenerate({ newMessages: hi() }));
  expect(texts(msgs)[0].payload.text).toBe('I cannot help with that.');
});
