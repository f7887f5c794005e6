/**
 * The shared adapter machinery stays platform-free: nothing under src/adapters/contract, render or format
 * imports a platform SDK, the gateway, or a platform folder — only src/core, each other, zod and marked,
 * plus types (never code) of express and pino, the HTTP and logging seams every binding shares.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SHARED = ['src/adapters/contract', 'src/adapters/render', 'src/adapters/format'];
const PACKAGES = new Set(['zod', 'marked']);
const TYPE_ONLY_PACKAGES = new Set(['express', 'pino']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(n) ? [p] : [];
  });
}

function imports(code: string): { spec: string; typeOnly: boolean }[] {
  const re = /(?:import|export)\s([^'"]*?)from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...code.matchAll(re)].map((m) => ({ spec: m[2] ?? m[3] ?? m[4], typeOnly: m[1] !== undefined && /^type\s/.test(m[1]) }));
}

describe('shared adapter code boundaries', () => {
  it('imports only src/core, the shared adapter folders, zod and marked', () => {
    const bad: string[] = [];
    let seen = 0;
    for (const dir of SHARED) {
      for (const f of files(join(ROOT, dir))) {
        for (const { spec, typeOnly } of imports(readFileSync(f, 'utf8'))) {
          seen++;
          const rel = relative(ROOT, f);
          if (spec.startsWith('.')) {
            const target = relative(ROOT, resolve(dirname(f), spec));
            if (!target.startsWith('src/core/') && !SHARED.some((d) => target.startsWith(`${d}/`))) bad.push(`${rel} → ${spec}`);
          } else if (!spec.startsWith('node:') && !PACKAGES.has(spec) && !(typeOnly && TYPE_ONLY_PACKAGES.has(spec))) {
            bad.push(`${rel} → ${spec}`);
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });
});
