/**
 * What a production install (`npm ci --omit=dev`, the image's `npm prune --omit=dev`) holds: no compiler,
 * bundler or test tool, and every package the server code imports at run time (src/, not the bundled
 * src/dashboard, not `import type`). The package install test (test/e2e/package-install.test.ts) proves
 * the same end to end; this one answers in a second.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

interface LsNode {
  dependencies?: Record<string, LsNode>;
}
function productionTree(): Set<string> {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const names = new Set<string>();
  const walk = (n: LsNode) => {
    for (const [name, child] of Object.entries(n.dependencies ?? {})) {
      names.add(name);
      walk(child);
    }
  };
  walk(JSON.parse(out) as LsNode);
  return names;
}

function runtimeImports(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (p === join(ROOT, 'src', 'dashboard')) continue;
      if (statSync(p).isDirectory()) visit(p);
      else if (p.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        const specs = [...text.matchAll(/^import (?!type )[^;]*? from '([^'.][^']*)'/gms), ...text.matchAll(/require\('([^'.][^']*)'\)/g)].map((m) => m[1]);
        for (const s of specs) {
          if (s.startsWith('node:')) continue;
          const name = s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0];
          if (!found.has(name)) found.set(name, p.slice(ROOT.length + 1));
        }
      }
    }
  };
  visit(join(ROOT, 'src'));
  return found;
}

const tree = productionTree();

it('holds no compiler, bundler or test tool', () => {
  for (const tool of ['typescript', 'esbuild', '@swc/core', '@swc/jest', 'jest', 'playwright-core']) expect({ tool, present: tree.has(tool) }).toEqual({ tool, present: false });
});

it('holds every package the server imports at run time, none of them a devDependency', () => {
  const imports = runtimeImports();
  expect(imports.size).toBeGreaterThan(10);
  const devOnly = [...imports].filter(([name]) => name in pkg.devDependencies && !(name in pkg.dependencies));
  expect(devOnly).toEqual([]);
  const missing = [...imports].filter(([name]) => !tree.has(name));
  expect(missing).toEqual([]);
});

it('declares every package the server imports as its own dependency, not one that arrives with another', () => {
  const undeclared = [...runtimeImports()].filter(([name]) => !(name in pkg.dependencies));
  expect(undeclared).toEqual([]);
});
