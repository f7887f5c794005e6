/**
 * The walker renders a short text once: later renders of the same text give the same output without asking
 * the dialect again, a long text is rendered each time, and a full memo starts over without losing output.
 */
import { Walker, type Dialect } from '../../../src/adapters/format/markdown-walk';

function countingDialect(): { dialect: Dialect; calls: () => number } {
  let n = 0;
  const id = (x: string) => {
    n++;
    return x;
  };
  const dialect: Dialect = {
    text: id,
    strong: (x) => `*${id(x)}*`,
    em: (x) => `_${id(x)}_`,
    del: (x) => `~${id(x)}~`,
    codespan: (c) => `\`${id(c)}\``,
    link: (href, label) => `${id(label)} (${href})`,
    br: () => '\n',
    paragraph: id,
    heading: (_d, x) => id(x),
    code: (c) => id(c),
    blockquote: id,
    hr: () => '---',
    bullet: () => '-',
    indent: '  ',
    table: id,
  };
  return { dialect, calls: () => n };
}

test('a short text is rendered once, with the same output every time', () => {
  const { dialect, calls } = countingDialect();
  const w = new Walker(dialect);
  const first = w.render('⏳ **thinking** · 3s');
  const made = calls();
  expect(made).toBeGreaterThan(0);
  expect(w.render('⏳ **thinking** · 3s')).toBe(first);
  expect(calls()).toBe(made);
  expect(w.render('⏳ **thinking** · 4s')).not.toBe(first);
  expect(calls()).toBeGreaterThan(made);
});

test('a long text is rendered on every call', () => {
  const { dialect, calls } = countingDialect();
  const w = new Walker(dialect);
  const long = `**answer** ${'word '.repeat(100)}`;
  const out = w.render(long);
  const made = calls();
  expect(w.render(long)).toBe(out);
  expect(calls()).toBe(2 * made);
});

test('past the memo size, texts still render right', () => {
  const { dialect } = countingDialect();
  const w = new Walker(dialect);
  for (let i = 0; i < 5000; i++) expect(w.render(`**${i}**`)).toBe(`*${i}*`);
  expect(w.render('**0**')).toBe('*0*');
});
