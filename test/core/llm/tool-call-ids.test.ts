/** ToolCallIdAllocator: provider ids kept while unused, `#n` on collisions, seeds respected, suffix stripped outbound. */
import { ToolCallIdAllocator, stripToolCallIdSuffix } from '../../../src/core/llm/tool-call-ids';

test('keeps unused ids and suffixes collisions #2, #3…', () => {
  const a = new ToolCallIdAllocator();
  expect(['x', 'x', 'y', 'x'].map((id) => a.allocate(id))).toEqual(['x', 'x#2', 'y', 'x#3']);
});

test('seeded ids count as used, including suffixed ones', () => {
  const a = new ToolCallIdAllocator();
  a.seed('call_1');
  a.seed('call_1#2');
  expect(a.allocate('call_1')).toBe('call_1#3');
  expect(a.allocate('call_2')).toBe('call_2');
});

test('an empty provider id still yields a unique id', () => {
  const a = new ToolCallIdAllocator();
  expect([a.allocate(''), a.allocate('')]).toEqual(['call', 'call#2']);
});

test('outbound strips only a trailing #n', () => {
  const a = new ToolCallIdAllocator();
  expect(a.outbound('call_1#12')).toBe('call_1');
  expect(a.outbound('call#x')).toBe('call#x');
  expect(stripToolCallIdSuffix('read_file')).toBe('read_file');
});
