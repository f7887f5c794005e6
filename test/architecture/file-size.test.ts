/**
 * Small files with one job each (issue 22's rule): no source file under src/ is over 400 lines, so a file
 * that grows past it is split along its jobs instead of growing on. A missing src/ fails the check.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|tsx|mjs|js|css)$/.test(name) ? [p] : [];
  });
}

export function oversized(files: string[], read: (f: string) => string = (f) => readFileSync(f, 'utf8')): string[] {
  return files.map((f) => [f, read(f).split('\n').length - 1] as const).filter(([, n]) => n > MAX_LINES).map(([f, n]) => `${relative(ROOT, f)}: ${n} lines`);
}

it(`no file under src/ is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles(join(ROOT, 'src'));
  expect(files.length).toBeGreaterThan(100);
  expect(oversized(files)).toEqual([]);
});

it('names a file over the limit with its length', () => {
  const text = (n: number) => 'x\n'.repeat(n);
  expect(oversized([join(ROOT, 'src/a.ts'), join(ROOT, 'src/b.ts')], (f) => text(f.endsWith('a.ts') ? 401 : 400))).toEqual(['src/a.ts: 401 lines']);
});
