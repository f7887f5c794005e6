/** Marker blocks: square form written, legacy angle form read (engine.md §1.9). */
import {
  attachedFileLine, attachedImageLine, findBlocks, formatBlock, formatFields, isWholeBlock, parseAttachmentLines, parseBlock, parseFields, stripBlocks,
} from '../../../src/core/omnimessage/markers';

describe('markers', () => {
  it('formats the canonical square form and parses it back', () => {
    const s = formatBlock('user_steering', 'look at B\nnot A');
    expect(s).toBe('[user_steering]\nlook at B\nnot A\n[/user_steering]');
    expect(parseBlock(s, 'user_steering')).toBe('look at B\nnot A');
    expect(isWholeBlock(s, 'user_steering')).toBe(true);
  });

  it('reads the legacy angle form', () => {
    const s = '<summary>\nthe gist\n</summary>';
    expect(parseBlock(s, 'summary')).toBe('the gist');
    expect(findBlocks(s)[0]).toMatchObject({ tag: 'summary', legacy: true });
    expect(isWholeBlock(s, 'summary')).toBe(true);
  });

  it('finds several blocks in order and strips them', () => {
    const s = `intro\n${formatBlock('summary', 'one')}\nmiddle\n<summary>two</summary>`;
    expect(findBlocks(s, 'summary').map((x) => x.body)).toEqual(['one', 'two']);
    expect(stripBlocks(s, 'summary')).toBe('intro\n\nmiddle');
    expect(isWholeBlock(s, 'summary')).toBe(false);
  });

  it('does not confuse a block of another tag', () => {
    expect(parseBlock('[goal]\nround: 1\n[/goal]', 'summary')).toBeUndefined();
    expect(isWholeBlock('[user_steering]\na\n[/user_steering] trailing', 'user_steering')).toBe(false);
  });

  it('round-trips header fields', () => {
    const body = `${formatFields({ kind: 'command', id: 'proc-1', status: 'failed', missing: undefined })}\n\ntail line`;
    expect(parseFields(body)).toEqual({ fields: { kind: 'command', id: 'proc-1', status: 'failed' }, rest: 'tail line' });
  });

  it('writes and reads attachment lines', () => {
    const text = `see these\n${attachedImageLine('/tmp/a b.png')}\n${attachedFileLine('/tmp/r.pdf')}`;
    expect(parseAttachmentLines(text)).toEqual({ images: ['/tmp/a b.png'], files: ['/tmp/r.pdf'] });
  });

  it('refuses tags that could not be parsed back', () => {
    expect(() => formatBlock('Bad Tag', 'x')).toThrow(RangeError);
  });
});
