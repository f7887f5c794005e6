/** The line diff behind the file tools' reports: hunks, edge cases, and a reconstruction property. */
import { applyPatch } from 'diff';
import fc from 'fast-check';
import { diffLines, splitLines, unifiedDiff } from '../../../src/core/environment/tools/unified-diff';

test('separate changes get separate hunks with three lines of context', () => {
  const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
  const b = a.replace('l2\n', 'L2\n').replace('l18\n', 'L18\n');
  expect(unifiedDiff(a, b, 'a', 'b')).toBe(
    ['--- a', '+++ b', '@@ -1,5 +1,5 @@', ' l1', '-l2', '+L2', ' l3', ' l4', ' l5',
      '@@ -15,6 +15,6 @@', ' l15', ' l16', ' l17', '-l18', '+L18', ' l19', ' l20'].join('\n'),
  );
});

test('identical texts give no diff; deleting everything gives an empty new range', () => {
  expect(unifiedDiff('a\n', 'a\n', 'x', 'y')).toBe('');
  expect(unifiedDiff('a\nb\n', '', 'x', 'y')).toBe('--- x\n+++ y\n@@ -1,2 +0,0 @@\n-a\n-b');
});

test('keeping the unchanged and added lines rebuilds the new text; unchanged and removed the old', () => {
  const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 30 });
  fc.assert(
    fc.property(lines, lines, (a, b) => {
      const ops = diffLines(a, b);
      expect(ops.filter((o) => o.t !== '-').map((o) => o.line)).toEqual(b);
      expect(ops.filter((o) => o.t !== '+').map((o) => o.line)).toEqual(a);
    }),
  );
});

test('splitLines drops only the final newline', () => {
  expect(splitLines('a\n\nb\n')).toEqual(['a', '', 'b']);
  expect(splitLines('')).toEqual([]);
});

test('the diff is a patch: applying it to the old text gives the new text', () => {
  const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 40 }).map((ls) => ls.map((l) => `${l}\n`).join(''));
  fc.assert(
    fc.property(text, text, fc.integer({ min: 0, max: 4 }), (a, b, context) => {
      const diff = unifiedDiff(a, b, 'a', 'b', context);
      expect(diff === '' ? a : applyPatch(a, `${diff}\n`)).toBe(b);
    }),
  );
});

test('CR stays part of its line, so CRLF and LF lines differ', () => {
  expect(unifiedDiff('a\r\nb\r\n', 'a\r\nc\r\n', 'x', 'y')).toBe('--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r');
  expect(unifiedDiff('a\r\n', 'a\n', 'x', 'y')).toBe('--- x\n+++ y\n@@ -1,1 +1,1 @@\n-a\r\n+a');
});

test('a missing final newline is no difference and gets no marker', () => {
  expect(unifiedDiff('a\nb', 'a\nb\n', 'x', 'y')).toBe('');
  expect(unifiedDiff('a\nb', 'a\nc', 'x', 'y')).toBe('--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+c');
});

test('a small edit in a large file stays a small hunk', () => {
  const a = Array.from({ length: 100_000 }, (_, i) => `l${i + 1}`);
  const b = a.slice();
  b[49_999] = 'changed';
  expect(unifiedDiff(a.join('\n'), b.join('\n'), 'x', 'y', 1)).toBe('--- x\n+++ y\n@@ -49999,3 +49999,3 @@\n l49999\n-l50000\n+changed\n l50001');
});

test('past the search bound a rewrite is all removed, then all added', () => {
  const a = Array.from({ length: 2000 }, (_, i) => `l${i}`);
  const b = a.map((l, i) => (i % 2 ? `changed ${l}` : l));
  expect(unifiedDiff(a.join('\n'), b.join('\n'), 'x', 'y')).toBe(
    ['--- x', '+++ y', '@@ -1,2000 +1,2000 @@', ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join('\n'),
  );
  expect(diffLines(a, b)).toEqual([...a.map((line) => ({ t: '-', line })), ...b.map((line) => ({ t: '+', line }))]);
});
