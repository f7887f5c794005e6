/** The line diff behind the file tools' reports: hunks, edge cases, and a reconstruction property. */
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
