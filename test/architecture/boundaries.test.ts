/**
 * The layers import one way: gateway → adapters → core. src/core imports no platform SDK, express or
 * sqlite and nothing outside src/core; src/adapters never imports src/gateway; no platform folder imports
 * another; src/gateway/runtime and src/gateway/scheduler decide nothing by platform name (adapters answer
 * for their threads, the contract's delivery targets for theirs). The dashboard's front end (src/dashboard,
 * bundled for the browser) imports only itself and its browser packages, and no server code imports it. A
 * folder these checks scan that is missing fails them instead of passing vacuously.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
/** src/adapters folders shared by every platform; every other folder there is one platform's. */
const SHARED_ADAPTER_DIRS = new Set(['contract', 'render', 'format']);
/** A comparison with, or a switch case on, a platform's name. */
const PLATFORM_BRANCH = /platform\s*[!=]==?\s*['"](slack|discord|telegram|web)['"]|case\s+['"](slack|discord|telegram|web)['"]\s*:/;
/** What the browser bundle may import besides its own files. */
const DASHBOARD_PACKAGES = [/^preact(\/|$)/, /^chart\.js$/, /^marked$/, /^dompurify$/];
const FORBIDDEN_IN_CORE = [/^@slack\//, /^discord\.js$/, /^@discordjs\//, /^grammy$/, /^@grammyjs\//, /^express$/, /^better-sqlite3$/];

function sourceFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(sourceFiles(p));
    else if (/\.(ts|tsx|js|mts|cts)$/.test(name)) out.push(p);
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
  const files = sourceFiles(dir);
  if (files.length === 0) throw new Error(`${layerDir} has no source files: a boundary check over nothing proves nothing`);
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

  it('no platform folder imports another platform folder', () => {
    const platforms = readdirSync(join(ROOT, 'src/adapters')).filter((d) => !SHARED_ADAPTER_DIRS.has(d) && statSync(join(ROOT, 'src/adapters', d)).isDirectory());
    expect(platforms).toEqual(expect.arrayContaining(['telegram', 'web']));
    for (const p of platforms) {
      const others = platforms.filter((o) => o !== p).map((o) => `src/adapters/${o}`);
      expect(violations(`src/adapters/${p}`, (_spec, target) => (target && others.some((o) => target.startsWith(o)) ? 'platform folders must not import each other' : undefined))).toEqual([]);
    }
  });

  it('src/gateway/runtime and src/gateway/scheduler have no platform branch', () => {
    const branches: string[] = [];
    for (const f of ['src/gateway/runtime', 'src/gateway/scheduler'].flatMap((d) => sourceFiles(join(ROOT, d)))) {
      readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
        if (PLATFORM_BRANCH.test(line)) branches.push(`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(branches).toEqual([]);
  });

  it('src/dashboard (browser code) imports only itself and its browser packages', () => {
    expect(
      violations('src/dashboard', (spec, target) => {
        if (target !== undefined) return target.startsWith('src/dashboard') ? undefined : 'the front end must not import server code';
        return DASHBOARD_PACKAGES.some((r) => r.test(spec)) ? undefined : 'not one of the dashboard\'s browser packages';
      }),
    ).toEqual([]);
  });

  it('no server code imports the front end', () => {
    for (const layer of ['src/core', 'src/adapters', 'src/gateway']) {
      expect(violations(layer, (_spec, target) => (target?.startsWith('src/dashboard') ? 'server code must not import the browser bundle' : undefined))).toEqual([]);
    }
  });

  it('a missing folder fails the checks instead of passing them', () => {
    expect(() => violations('src/no-such-layer', () => undefined)).toThrow();
  });

  it('spots a platform branch', () => {
    expect(["if (thread.platform === 'telegram')", "p.platform !== \"slack\"", "case 'discord':"].every((l) => PLATFORM_BRANCH.test(l))).toBe(true);
    expect(PLATFORM_BRANCH.test('if (r.match.platform === adapter.platform)')).toBe(false);
  });
});
