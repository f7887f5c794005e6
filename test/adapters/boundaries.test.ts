/**
 * The shared adapter machinery stays platform-free: nothing under src/adapters/contract, render or format
 * imports a platform SDK, the gateway, or a platform folder — only src/core, each other, zod and marked.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SHARED = ['src/adapters/contract', 'src/adapters/render', 'src/adapters/format'];
const PACKAGES = new Set(['zod', 'marked']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(n) ? [p] : [];
  });
}

function imports(code: string): string[] {
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...code.matchAll(re)].map((m) => m[1] ?? m[2] ?? m[3]);
}

describe('shared adapter code boundaries', () => {
  it('imports only src/core, the shared adapter folders, zod and marked', () => {
    const bad: string[] = [];
    let seen = 0;
    for (const dir of SHARED) {
      for (const f of files(join(ROOT, dir))) {
        for (const spec of imports(readFileSync(f, 'utf8'))) {
          seen++;
          const rel = relative(ROOT, f);
          if (spec.startsWith('.')) {
            const target = relative(ROOT, resolve(dirname(f), spec));
            if (!target.startsWith('src/core/') && !SHARED.some((d) => target.startsWith(`${d}/`))) bad.push(`${rel} → ${spec}`);
          } else if (!spec.startsWith('node:') && !PACKAGES.has(spec)) {
            bad.push(`${rel} → ${spec}`);
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });
});
