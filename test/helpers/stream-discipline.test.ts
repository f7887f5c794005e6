/** The discipline checker itself must catch each kind of violation, or the tests that rely on it prove nothing. */
import * as b from '../../src/core/omnimessage/builders';
import { assertStreamDiscipline, checkStreamDiscipline } from './stream-discipline';

const good = [b.partialText('start'), b.partialText('delta', 'ab'), b.partialText('delta', 'c'), b.partialText('stop'), b.assistantText('abc')];

describe('stream discipline checker', () => {
  it('accepts a well-formed stream', () => {
    expect(checkStreamDiscipline([b.requestBegin(), ...good, b.requestEnd('completed')])).toEqual([]);
  });
  it('rejects content that differs from the joined deltas', () => {
    expect(checkStreamDiscipline([...good.slice(0, 4), b.assistantText('abd')]).join()).toMatch(/≠ joined deltas/);
  });
  it('rejects a missing start, a missing stop and a missing complete', () => {
    expect(checkStreamDiscipline([b.partialText('delta', 'x')]).join()).toMatch(/without start/);
    expect(checkStreamDiscipline([b.partialText('start'), b.partialText('delta', 'x')]).join()).toMatch(/never stopped/);
    expect(checkStreamDiscipline([b.partialText('start'), b.partialText('stop')]).join()).toMatch(/no complete message/);
  });
  it('rejects a stop_reason mismatch and content on start/stop', () => {
    expect(checkStreamDiscipline([b.partialText('start'), b.partialText('stop', '', 'aborted'), b.assistantText('')]).join()).toMatch(/stop_reason/);
    expect(checkStreamDiscipline([b.partialText('start', 'x')]).join()).toMatch(/start of .* carries content/);
  });
  it('requires adjacency by default and allows interleaving when asked', () => {
    const interleaved = [
      b.partialToolCallOutput('start', 'a'), b.partialToolCallOutput('start', 'b'), b.partialToolCallOutput('delta', 'a', '1'),
      b.partialToolCallOutput('stop', 'a'), b.partialToolCallOutput('delta', 'b', '2'), b.toolCallOutput({ output: '1', tool_call_id: 'a' }),
      b.partialToolCallOutput('stop', 'b'), b.toolCallOutput({ output: '2', tool_call_id: 'b' }),
    ];
    expect(checkStreamDiscipline(interleaved).length).toBeGreaterThan(0);
    expect(checkStreamDiscipline(interleaved, { adjacent: false })).toEqual([]);
  });
  it('treats different origins as different streams', () => {
    const child = good.map((m) => b.withOrigin(m, 'child'));
    expect(checkStreamDiscipline([child[0], good[0], child[1], good[1], child[2], child[3], child[4], good[2], good[3], good[4]])).toEqual([]);
  });
  it('assert throws with every violation listed', () => {
    expect(() => assertStreamDiscipline([b.partialText('delta', 'x')])).toThrow(/stream discipline violated/);
  });
});
