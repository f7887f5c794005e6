/**
 * Fence-aware chunking: boundary preferences, fences closed and reopened, surrogate-safe cuts, stability as
 * text grows, memo equivalence, and the general property (exact concatenation, fit, balance).
 */
import fc from 'fast-check';
import { chunkMarkdown, type Chunk } from '../../../src/adapters/render/markdown-chunks';
import { openFenceAtEnd } from '../../../src/adapters/render/fences';

const decorated = (text: string, c: Chunk) => c.prefix + text.slice(c.start, c.end) + c.suffix;
const bySize = (n: number) => (md: string) => md.length <= n;

function para(i: number, words = 12): string {
  return Array.from({ length: words }, (_, k) => `w${i}_${k}`).join(' ');
}

describe('fence-aware chunking', () => {
  it('returns one chunk when the text fits', () => {
    expect(chunkMarkdown('short', { fits: bySize(100) }).chunks).toEqual([{ start: 0, end: 5, prefix: '', suffix: '' }]);
    expect(chunkMarkdown('', { fits: bySize(100) }).chunks).toEqual([{ start: 0, end: 0, prefix: '', suffix: '' }]);
  });

  it('cuts at paragraph boundaries first', () => {
    const text = [para(1), para(2), para(3), para(4)].join('\n\n');
    const { chunks } = chunkMarkdown(text, { fits: bySize(200) });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks.slice(0, -1)) expect(text.slice(c.end - 2, c.end)).toBe('\n\n');
    expect(chunks.map((c) => text.slice(c.start, c.end)).join('')).toBe(text);
  });

  it('closes and reopens a code fence it has to cut through', () => {
    const code = Array.from({ length: 60 }, (_, i) => `line ${i} = compute(${i});`).join('\n');
    const text = `Intro paragraph.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nOutro.`;
    const { chunks } = chunkMarkdown(text, { fits: bySize(400) });
    expect(chunks.length).toBeGreaterThan(2);
    for (const [k, c] of chunks.entries()) {
      const d = decorated(text, c);
      expect(d.length).toBeLessThanOrEqual(400);
      expect(openFenceAtEnd(d)).toBeNull();
      if (k > 0 && c.prefix) expect(c.prefix).toBe('```ts\n');
    }
    const inner = chunks.filter((c) => c.prefix && c.suffix);
    expect(inner.length).toBeGreaterThan(0);
    for (const c of chunks.slice(0, -1)) expect(text[c.end - 1]).toBe('\n');
  });

  it('falls back to spaces, then hard cuts that never split a surrogate pair', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const w = chunkMarkdown(words, { fits: bySize(50) }).chunks;
    for (const c of w.slice(0, -1)) expect(words[c.end - 1]).toBe(' ');
    const emoji = '😀'.repeat(100);
    const e = chunkMarkdown(emoji, { fits: bySize(33) }).chunks;
    for (const c of e) {
      expect(c.end - c.start).toBeLessThanOrEqual(33);
      expect((c.end - c.start) % 2).toBe(0);
    }
  });

  it('keeps earlier chunks in place as the text grows (stable rolling)', () => {
    let text = '';
    let before: Chunk[] = [];
    for (let i = 0; i < 40; i++) {
      text += (i % 5 === 4 ? '\n\n' : ' ') + para(i, 5);
      const { chunks } = chunkMarkdown(text, { fits: bySize(300) });
      for (let k = 0; k < before.length - 1; k++) expect(chunks[k]).toEqual(before[k]);
      before = chunks;
    }
  });

  it('gives the same answer with and without the memo', () => {
    let text = '';
    let memo;
    for (let i = 0; i < 60; i++) {
      text += i % 7 === 0 ? '\n\n```py\n' : i % 7 === 3 ? '\n```\n\n' : `${para(i, 4)}\n`;
      const withMemo = chunkMarkdown(text, { fits: bySize(180), memo, memoKey: 'k' });
      memo = withMemo.memo;
      expect(withMemo.chunks).toEqual(chunkMarkdown(text, { fits: bySize(180) }).chunks);
    }
  });

  it('for any text: slices concatenate to the input, every decorated chunk fits and is fence-balanced', () => {
    const piece = fc.constantFrom('word ', 'longerword ', '\n', '\n\n', '```js\n', '```\n', '~~~\n', '😀', '**b** ', '- item\n', '    indented\n', 'é');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), fc.integer({ min: 24, max: 120 }), (parts, max) => {
        const text = parts.join('');
        const { chunks } = chunkMarkdown(text, { fits: bySize(max) });
        expect(chunks.map((c) => text.slice(c.start, c.end)).join('')).toBe(text);
        for (const c of chunks) {
          const d = decorated(text, c);
          if (c.end - c.start > 2) expect(d.length).toBeLessThanOrEqual(max);
          expect(openFenceAtEnd(d)).toBeNull();
        }
      }),
      { numRuns: 300, seed: 4096 },
    );
  });
});
