/**
 * ChatStreamTranslator edge cases fed chunk by chunk (no network): eager tool_call emission with interleaved
 * fragments, index reuse, missing indexes, late names, late fragments, type switches, empty arguments.
 */
import { ChatStreamTranslator, type ChunkLike, type ToolFragment } from '../../../src/core/llm/stream-translator';
import { ToolCallIdAllocator } from '../../../src/core/llm/tool-call-ids';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import { shape, toolCalls } from './collect';

const tc = (...fragments: ToolFragment[]): ChunkLike => ({ choices: [{ index: 0, delta: { tool_calls: fragments } }] });
const text = (content: string): ChunkLike => ({ choices: [{ index: 0, delta: { content } }] });
const finish = (reason = 'tool_calls'): ChunkLike => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const head = (index: number, id: string | undefined, name: string | undefined, args = ''): ToolFragment => ({ index, id, function: { name, arguments: args } });
const arg = (index: number, a: string): ToolFragment => ({ index, function: { arguments: a } });

function run(chunks: ChunkLike[]): { tr: ChatStreamTranslator; per: OmniMessage[][]; all: OmniMessage[] } {
  const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
  const per = chunks.map((c) => tr.push(c));
  const all = per.flat();
  if (!tr.malformed) assertStreamDiscipline(all);
  return { tr, per, all };
}

test('interleaved calls: call 0 is emitted complete as soon as its JSON closes while call 1 is open', () => {
  const { per, all, tr } = run([
    tc(head(0, 'a', 'f')), tc(head(1, 'b', 'g')),
    tc(arg(0, '{"x":')), tc(arg(1, '{"y":')), tc(arg(0, '1}')), tc(arg(1, '2}')), finish(),
  ]);
  expect(tr.malformed).toBeUndefined();
  // chunk #4 completes call a: its tool_call comes out right then, followed by b's buffered start + delta
  expect(shape(per[4])).toEqual(['partial_tool_call:delta', 'partial_tool_call:stop', 'tool_call', 'partial_tool_call:start', 'partial_tool_call:delta']);
  expect(toolCalls(per[4])[0].payload).toMatchObject({ tool_call_id: 'a', arguments: '{"x":1}' });
  expect(toolCalls(all).map((m) => [m.payload.tool_call_id, m.payload.arguments])).toEqual([['a', '{"x":1}'], ['b', '{"y":2}']]);
});

test('a new id on a known index opens a new call; fragments without index go to the latest call', () => {
  const { all } = run([
    tc(head(0, 'a', 'f', '{}')), tc(head(0, 'b', 'g')), tc({ function: { arguments: '{"k":' } }), tc({ function: { arguments: '3}' } }), finish(),
  ]);
  expect(toolCalls(all).map((m) => [m.payload.tool_call_id, m.payload.name, m.payload.arguments])).toEqual([['a', 'f', '{}'], ['b', 'g', '{"k":3}']]);
});

test('a call whose name arrives late starts once the name is known', () => {
  const { all } = run([tc(head(0, 'a', undefined, '{"p"')), tc({ index: 0, function: { name: 'late', arguments: ':1}' } }), finish()]);
  expect(shape(all)).toEqual(['partial_tool_call:start', 'partial_tool_call:delta', 'partial_tool_call:stop', 'tool_call']);
  expect(toolCalls(all)[0].payload).toMatchObject({ name: 'late', arguments: '{"p":1}' });
});

test('empty arguments are a valid no-argument call', () => {
  const { all, tr } = run([tc(head(0, 'a', 'now')), finish()]);
  expect(tr.malformed).toBeUndefined();
  expect(toolCalls(all)[0].payload).toMatchObject({ arguments: '', stop_reason: 'completed' });
});

test('arguments that are JSON but not an object are malformed', () => {
  const { tr, all } = run([tc(head(0, 'a', 'f', '[1,2]')), finish()]);
  expect(tr.malformed).toMatch(/invalid JSON/);
  expect(toolCalls(all)[0].payload.stop_reason).toBe('malformed');
});

test('more argument text for a call already emitted complete is malformed', () => {
  const { tr } = run([tc(head(0, 'a', 'f', '{}')), tc(head(1, 'b', 'g', '{}')), tc(arg(0, ',"x":1}'))]);
  expect(tr.malformed).toMatch(/continued after it was complete/);
});

test('a call that never got a name is malformed at finish', () => {
  const { tr, all } = run([tc(head(0, 'a', undefined, '{}')), finish()]);
  expect(tr.malformed).toMatch(/without a function name/);
  expect(toolCalls(all)[0].payload.stop_reason).toBe('malformed');
});

test('text after tool calls closes them all (completed) before the text starts', () => {
  const { all } = run([tc(head(0, 'a', 'f', '{"z":')), tc(arg(0, '0}')), text('after'), finish('stop')]);
  expect(shape(all)).toEqual([
    'partial_tool_call:start', 'partial_tool_call:delta', 'partial_tool_call:delta', 'partial_tool_call:stop', 'tool_call',
    'partial_text:start', 'partial_text:delta', 'partial_text:stop', 'text',
  ]);
});

test('chunks after finish_reason add nothing but usage', () => {
  const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
  tr.push(text('a'));
  tr.push(finish('stop'));
  expect(tr.push(text('late'))).toEqual([]);
  tr.push({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } });
  expect(tr.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1 });
});

test('closeOpen closes text and every named call with the given reason, in order', () => {
  const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
  const msgs = [...tr.push(tc(head(0, 'a', 'f', '{"a":'))), ...tr.push(tc(head(1, 'b', 'g', '{"b":'))), ...tr.push(tc(head(2, 'c', undefined, '{')))];
  msgs.push(...tr.closeOpen('timeout'));
  assertStreamDiscipline(msgs);
  expect(toolCalls(msgs).map((m) => [m.payload.tool_call_id, m.payload.stop_reason, m.payload.arguments])).toEqual([['a', 'timeout', '{"a":'], ['b', 'timeout', '{"b":']]);
});

describe('chunks that arrived together (pushAll)', () => {
  const thinking = (reasoning_content: string): ChunkLike => ({ choices: [{ index: 0, delta: { reasoning_content } }] });
  const deltas = (msgs: OmniMessage[]) => msgs.filter((m) => (m.payload as { event_type?: string }).event_type === 'delta');

  test('one delta per segment carries every piece of the batch; the complete messages are those of one-by-one', () => {
    const chunks = [thinking('let '), thinking('me '), thinking('see'), text('Hel'), text('lo'), text(' there'), finish('stop')];
    const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
    const all = tr.pushAll(chunks);
    assertStreamDiscipline(all);
    expect(shape(all)).toEqual([
      'partial_thinking:start', 'partial_thinking:delta', 'partial_thinking:stop', 'thinking',
      'partial_text:start', 'partial_text:delta', 'partial_text:stop', 'text',
    ]);
    expect(deltas(all).map((m) => (m.payload as { thinking?: string; text?: string }).thinking ?? (m.payload as { text: string }).text)).toEqual(['let me see', 'Hello there']);
    const { tr: one } = run(chunks);
    expect(tr.produced.map((m) => m.payload)).toEqual(one.produced.map((m) => m.payload));
  });

  test('batches are not joined with each other: each hands over what it read', () => {
    const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
    const first = tr.pushAll([text('a'), text('b')]);
    const second = tr.pushAll([text('c'), text('d'), finish('stop')]);
    expect(deltas(first).map((m) => (m.payload as { text: string }).text)).toEqual(['ab']);
    expect(deltas(second).map((m) => (m.payload as { text: string }).text)).toEqual(['cd']);
    assertStreamDiscipline([...first, ...second]);
    expect(tr.produced.map((m) => (m.payload as { text: string }).text)).toEqual(['abcd']);
  });

  test("a call's argument pieces are one delta; two calls' deltas stay apart and the calls are those of one-by-one", () => {
    const chunks = [tc(head(0, 'a', 'f')), tc(head(1, 'b', 'g')), tc(arg(0, '{"x":')), tc(arg(1, '{"y":')), tc(arg(0, '1}')), tc(arg(1, '2}')), finish()];
    const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
    const all = tr.pushAll(chunks);
    assertStreamDiscipline(all);
    expect(deltas(all).map((m) => [(m.payload as { tool_call_id: string }).tool_call_id, (m.payload as { arguments: string }).arguments])).toEqual([['a', '{"x":1}'], ['b', '{"y":2}']]);
    expect(toolCalls(all).map((m) => [m.payload.tool_call_id, m.payload.arguments])).toEqual([['a', '{"x":1}'], ['b', '{"y":2}']]);
    const { all: one } = run(chunks);
    expect(toolCalls(all).map((m) => m.payload)).toEqual(toolCalls(one).map((m) => m.payload));
    // chunk by chunk the same stream has one delta per fragment
    expect(deltas(one)).toHaveLength(4);
  });

  test('stops at the chunk that makes the stream malformed', () => {
    const tr = new ChatStreamTranslator(new ToolCallIdAllocator());
    const all = tr.pushAll([tc(head(0, 'a', 'f', '{}')), tc(head(1, 'b', 'g', '{}')), tc(arg(0, ',"x":1}')), text('never')]);
    expect(tr.malformed).toMatch(/continued after it was complete/);
    expect(shape(all)).not.toContain('partial_text:start');
  });
});
