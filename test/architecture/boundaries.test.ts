/**
 * The layers import one way: gateway → adapters → core. src/core imports no platform SDK, express or
 * sqlite and nothing outside src/core; src/adapters never imports src/gateway.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const FORBIDDEN_IN_CORE = [/^@slack\//, /^discord\.js$/, /^@discordjs\//, /^grammy$/, /^@grammyjs\//, /^express$/, /^better-sqlite3$/];

function sourceFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(sourceFiles(p));
    else if (/\.(ts|js|mts|cts)$/.test(name)) out.push(p);
  }
  return out;
}

/** Module specifiers of static imports, re-exports, dynamic imports and requires. */
export function specifiers(code: string): string[] {
  const out: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of code.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function violations(layerDir: string, check: (spec: string, resolvedPath: string | undefined) => string | undefined): string[] {
  const dir = join(ROOT, layerDir);
  const found: string[] = [];
  let files: string[] = [];
  try {
    files = sourceFiles(dir);
  } catch {
    return [];
  }
  for (const f of files) {
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      const target = spec.startsWith('.') ? relative(ROOT, resolve(dirname(f), spec)) : undefined;
      const why = check(spec, target);
      if (why) found.push(`${relative(ROOT, f)} imports '${spec}': ${why}`);
    }
  }
  return found;
}

describe('layer boundaries', () => {
  it('finds every import form', () => {
    const code = `import a from 'x1';\nimport { b } from "x2";\nimport 'x3';\nexport * from './x4';\nconst c = require('x5');\nawait import('x6');\nimport type { T } from 'x7';`;
    expect(specifiers(code)).toEqual(['x1', 'x2', 'x3', './x4', 'x5', 'x6', 'x7']);
  });

  it('src/core imports no platform SDK, express, sqlite or outer layer', () => {
    expect(
      violations('src/core', (spec, target) => {
        if (FORBIDDEN_IN_CORE.some((r) => r.test(spec))) return 'platform SDK / express / sqlite in core';
        if (target && !target.startsWith('src/core')) return 'core must not import outside src/core';
        return undefined;
      }),
    ).toEqual([]);
  });

  it('src/adapters never imports src/gateway', () => {
    expect(violations('src/adapters', (_spec, target) => (target?.startsWith('src/gateway') ? 'adapters must not import the gateway' : undefined))).toEqual([]);
  });
});
