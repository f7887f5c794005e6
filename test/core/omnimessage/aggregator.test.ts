/** PartialAggregator folds fragments into complete messages per engine.md §1.7. */
import * as b from '../../../src/core/omnimessage/builders';
import { PartialAggregator, aggregateAll } from '../../../src/core/omnimessage/aggregator';
import type { OmniMessage } from '../../../src/core/omnimessage/types';

const payloads = (ms: OmniMessage[]) => ms.map((m) => m.payload);

describe('PartialAggregator', () => {
  it('joins a text segment and passes other messages through in order', () => {
    const out = aggregateAll([b.requestBegin(), b.partialText('start'), b.partialText('delta', 'Hel'), b.partialText('delta', 'lo'), b.partialText('stop'), b.requestEnd('completed')]);
    expect(payloads(out)).toEqual([{ type: 'request_begin' }, { type: 'text', role: 'assistant', text: 'Hello', stop_reason: 'completed' }, { type: 'request_end', status: 'completed' }]);
  });

  it('keeps interleaved tool calls apart by tool_call_id', () => {
    const agg = new PartialAggregator();
    const seq = [
      b.partialToolCall('start', 'a', 'read_file'),
      b.partialToolCall('start', 'b', 'exec_command'),
      b.partialToolCall('delta', 'a', '', '{"file_path":'),
      b.partialToolCall('delta', 'b', '', '{"cmd":'),
      b.partialToolCall('delta', 'b', '', '"ls"}'),
      b.partialToolCall('delta', 'a', '', '"x"}'),
      b.partialToolCall('stop', 'b'),
      b.partialToolCall('stop', 'a'),
    ];
    const out = seq.flatMap((m) => agg.push(m));
    expect(payloads(out)).toEqual([
      { type: 'tool_call', role: 'assistant', name: 'exec_command', arguments: '{"cmd":"ls"}', tool_call_id: 'b', stop_reason: 'completed' },
      { type: 'tool_call', role: 'assistant', name: 'read_file', arguments: '{"file_path":"x"}', tool_call_id: 'a', stop_reason: 'completed' },
    ]);
    expect(agg.openCount).toBe(0);
  });

  it('tolerates headless deltas and stops', () => {
    const out = aggregateAll([b.partialText('delta', 'abc'), b.partialText('stop', '', 'aborted'), b.partialThinking('stop', '', 'failed')]);
    expect(payloads(out)).toEqual([
      { type: 'text', role: 'assistant', text: 'abc', stop_reason: 'aborted' },
      { type: 'thinking', role: 'assistant', thinking: '', stop_reason: 'failed' },
    ]);
  });

  it('flushes open fragments in opening order with the last stop_reason seen', () => {
    const agg = new PartialAggregator();
    agg.push(b.partialToolCallOutput('start', 'x'));
    agg.push(b.partialText('start'));
    agg.push(b.partialText('delta', 'half', 'timeout'));
    agg.push(b.partialToolCallOutput('delta', 'x', 'out', { images: ['data:image/png;base64,AA=='] }));
    expect(payloads(agg.flush())).toEqual([
      { type: 'tool_call_output', role: 'user', output: 'out', images: ['data:image/png;base64,AA=='], tool_call_id: 'x', stop_reason: 'completed' },
      { type: 'text', role: 'assistant', text: 'half', stop_reason: 'timeout' },
    ]);
    expect(agg.flush()).toEqual([]);
  });

  it('a second start of an open segment completes the first one', () => {
    const out = aggregateAll([b.partialText('start'), b.partialText('delta', 'one'), b.partialText('start'), b.partialText('delta', 'two'), b.partialText('stop')]);
    expect(out.map((m) => (m.payload as { text: string }).text)).toEqual(['one', 'two']);
  });

  it('stop_reason propagates from the stop into the complete message', () => {
    const out = aggregateAll([b.partialToolCall('start', 'c', 'x'), b.partialToolCall('delta', 'c', '', '{'), b.partialToolCall('stop', 'c', '', '', 'malformed')]);
    expect(out[0].payload).toMatchObject({ type: 'tool_call', arguments: '{', stop_reason: 'malformed' });
  });

  it('keeps the origin of forwarded fragments on the complete message', () => {
    const out = aggregateAll([b.withOrigin(b.partialText('start'), 's1'), b.withOrigin(b.partialText('delta', 'x'), 's1'), b.withOrigin(b.partialText('stop'), 's1')]);
    expect(out[0].origin).toEqual(['s1']);
  });
});
