/**
 * scripts/build-state.js, the check `npm start` and `npm pack` make before running anything: a tree is
 * current only when a finished build's stamp is newer than every input (each file and directory under
 * src/, scripts/, bench/ and test/, tsconfig.json, package.json, package-lock.json). An edited, added or deleted source,
 * a build that failed or was still running, and an edit made during a build all make it stale; a tree
 * without src/ (the installed package) is always current. Mtimes are set explicitly, never waited for.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface BuildStateModule {
  buildState(root: string): { current: true } | { current: false; reason: string };
  begin(root: string): void;
  end(root: string): void;
  STAMP: string;
}
const bs = require('../../scripts/build-state.js') as BuildStateModule;

let root: string;
const at = (p: string, secondsAgo: number) => {
  const t = Date.now() / 1000 - secondsAgo;
  utimesSync(join(root, p), t, t);
};
const INPUTS = ['src', 'src/gateway', 'src/gateway/main.ts', 'src/index.ts', 'scripts', 'scripts/build.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** A finished build 100 s ago of inputs last touched 200 s ago. */
function built(): void {
  bs.begin(root);
  bs.end(root);
  for (const p of INPUTS) if (existsSync(join(root, p))) at(p, 200);
  at(bs.STAMP, 100);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pg-build-state-'));
  mkdirSync(join(root, 'src/gateway'), { recursive: true });
  mkdirSync(join(root, 'scripts'));
  for (const f of ['src/gateway/main.ts', 'src/index.ts', 'scripts/build.mjs', 'tsconfig.json', 'package.json', 'package-lock.json']) writeFileSync(join(root, f), 'x');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('is stale before the first build and current after one', () => {
  expect(bs.buildState(root)).toEqual({ current: false, reason: 'no finished build in dist/' });
  built();
  expect(bs.buildState(root)).toEqual({ current: true });
});

it('names the input that changed since the build', () => {
  built();
  at('src/gateway/main.ts', 10);
  expect(bs.buildState(root)).toEqual({ current: false, reason: `${join('src', 'gateway', 'main.ts')} changed since the last build` });
  built();
  at('package-lock.json', 10);
  expect(bs.buildState(root)).toEqual({ current: false, reason: 'package-lock.json changed since the last build' });
});

it('counts the tests and benchmarks, which the build compiles into dist/ too', () => {
  mkdirSync(join(root, 'test/fakes'), { recursive: true });
  writeFileSync(join(root, 'test/fakes/server.ts'), 'x');
  mkdirSync(join(root, 'bench'));
  writeFileSync(join(root, 'bench/run.ts'), 'x');
  for (const p of ['test', 'test/fakes', 'bench']) at(p, 200);
  at('bench/run.ts', 200);
  built();
  at('test/fakes/server.ts', 200);
  expect(bs.buildState(root)).toEqual({ current: true });
  at('test/fakes/server.ts', 10);
  expect(bs.buildState(root)).toEqual({ current: false, reason: `${join('test', 'fakes', 'server.ts')} changed since the last build` });
  built();
  at('test/fakes/server.ts', 200);
  at('bench/run.ts', 10);
  expect(bs.buildState(root)).toEqual({ current: false, reason: `${join('bench', 'run.ts')} changed since the last build` });
});

it('sees a deleted or added source through its directory', () => {
  built();
  unlinkSync(join(root, 'src/index.ts'));
  at('src', 10);
  expect(bs.buildState(root)).toMatchObject({ current: false, reason: 'src changed since the last build' });
  built();
  writeFileSync(join(root, 'src/gateway/new.ts'), 'x');
  at('src/gateway/new.ts', 200);
  at('src/gateway', 10);
  expect(bs.buildState(root)).toMatchObject({ current: false, reason: `${join('src', 'gateway')} changed since the last build` });
});

it('is stale after a build that failed or never ended', () => {
  built();
  bs.begin(root);
  expect(bs.buildState(root)).toEqual({ current: false, reason: 'no finished build in dist/' });
});

it('counts an edit made while the build ran as newer than the build', () => {
  for (const p of INPUTS) at(p, 200);
  bs.begin(root);
  at('dist/.build-pending', 100);
  at('src/index.ts', 50);
  bs.end(root);
  expect(bs.buildState(root)).toMatchObject({ current: false, reason: `${join('src', 'index.ts')} changed since the last build` });
});

it('is always current without sources (the installed package)', () => {
  rmSync(join(root, 'src'), { recursive: true });
  expect(bs.buildState(root)).toEqual({ current: true });
});
