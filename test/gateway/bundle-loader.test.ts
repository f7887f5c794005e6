/**
 * loadBundle (the loader of the gateway's bundles): a CommonJS file runs once as a module with its own
 * require, module, exports, __filename and __dirname, and stays in require.cache unless it threw; a file
 * spanning several read pieces arrives whole; a missing file says to build; a non-ASCII byte is refused;
 * errors point at the file's own lines. Code caches (makeCodeCache), in fresh processes: a later load
 * uses one; a cache of other content, or one V8 refuses (other flags), is not used, and stderr says so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../../src/gateway/bundle-loader';
import { assertGatewayBuilt } from '../e2e/gateway-process';

const BUILT = join(__dirname, '../../dist/src/gateway/bundle-loader.js');
beforeAll(() => assertGatewayBuilt());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-bundle-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadBundle', () => {
  it('runs the file as a module whose require resolves from its own folder', () => {
    mkdirSync(join(dir, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/dep/index.js'), 'module.exports = "from node_modules";');
    writeFileSync(join(dir, 'helper.js'), 'exports.twice = (n) => n * 2;');
    writeFileSync(join(dir, 'bundle.js'), [
      'const { twice } = require("./helper");',
      'exports.answer = twice(21);',
      'exports.dep = require("dep");',
      'exports.path = require("node:path").basename(__filename);',
      'exports.dir = __dirname;',
      'exports.same = module.exports === exports;',
    ].join('\n'));
    expect(loadBundle(join(dir, 'bundle.js'))).toEqual({ answer: 42, dep: 'from node_modules', path: 'bundle.js', dir, same: true });
  });

  it('returns what the file assigns to module.exports', () => {
    writeFileSync(join(dir, 'b.js'), 'module.exports = { main: () => "ran" };');
    expect((loadBundle(join(dir, 'b.js')) as { main(): string }).main()).toBe('ran');
  });

  // In a node process of its own: jest gives each test file a require.cache of its own.
  it('runs a file once: later loads, and require, get the same exports', () => {
    writeFileSync(join(dir, 'once.js'), 'globalThis.runs = (globalThis.runs ?? 0) + 1; exports.made = {};');
    const script = `
const { loadBundle } = require(${JSON.stringify(BUILT)});
const first = loadBundle(${JSON.stringify(join(dir, 'once.js'))});
const again = loadBundle(${JSON.stringify(join(dir, '.', 'once.js'))});
const required = require(${JSON.stringify(join(dir, 'once.js'))});
process.stdout.write(JSON.stringify({ again: again === first, required: required === first, runs: globalThis.runs }));`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual({ again: true, required: true, runs: 1 });
  });

  it('a file that throws while it runs is not kept: the next load runs it again', () => {
    const file = join(dir, 'throws.js');
    writeFileSync(file, 'throw new Error("not yet");');
    const script = `
const { writeFileSync } = require('node:fs');
const { loadBundle } = require(${JSON.stringify(BUILT)});
let error;
try { loadBundle(${JSON.stringify(file)}); } catch (e) { error = e.message; }
writeFileSync(${JSON.stringify(file)}, 'exports.ok = true;');
process.stdout.write(JSON.stringify({ error, then: loadBundle(${JSON.stringify(file)}) }));`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual({ error: 'not yet', then: { ok: true } });
  });

  it('reads a file larger than one piece whole', () => {
    const big = 'x'.repeat(200_000);
    writeFileSync(join(dir, 'big.js'), `exports.s = "${big}"; exports.end = "end";`);
    const got = loadBundle(join(dir, 'big.js')) as { s: string; end: string };
    expect(got.s).toBe(big);
    expect(got.end).toBe('end');
  });

  it('says to build when the file is missing', () => {
    expect(() => loadBundle(join(dir, 'absent.js'))).toThrow(/absent\.js cannot be read \(ENOENT\): run `npm run build`/);
  });

  it('refuses a byte that is not ASCII, naming its offset', () => {
    writeFileSync(join(dir, 'u.js'), 'exports.s = "caf\u00e9";');
    expect(() => loadBundle(join(dir, 'u.js'))).toThrow(/u\.js: byte 16 is not ASCII/);
  });

  it('passes a syntax error on', () => {
    writeFileSync(join(dir, 'bad.js'), 'exports.x = ;');
    // (jest runs tests in a realm of their own, so the error's class is compared by name)
    expect(() => loadBundle(join(dir, 'bad.js'))).toThrow(expect.objectContaining({ name: 'SyntaxError', message: "Unexpected token ';'" }));
  });

  it("points errors at the file's own lines and columns", () => {
    writeFileSync(join(dir, 'lines.js'), 'exports.a = 1;\n  exports.f = () => { throw new Error("here"); };\n');
    const m = loadBundle(join(dir, 'lines.js')) as { f(): void };
    let stack = '';
    try {
      m.f();
    } catch (e) {
      stack = (e as Error).stack ?? '';
    }
    expect(stack.split('\n')[1]).toContain(`${join(dir, 'lines.js')}:2:29`);
  });
});

describe('code cache', () => {
  /** A fresh node process running `script` with the built loader as `loader`, under `flags` set first. */
  const inNode = (script: string, flags: string[] = []): { out: string; err: string } => {
    const r = spawnSync(process.execPath, ['-e', `
const v8 = require('node:v8');
for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);
const loader = require(${JSON.stringify(BUILT)});
${script}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`node exited with ${r.status}: ${r.stderr}`);
    return { out: r.stdout, err: r.stderr };
  };
  const make = (file: string, flags?: string[]) => inNode(`loader.makeCodeCache(${JSON.stringify(file)});`, flags);
  const load = (file: string, flags?: string[]) => {
    const r = inNode(`
const exports_ = loader.loadBundle(${JSON.stringify(file)});
process.stdout.write(JSON.stringify({ exports: exports_, loads: loader.bundleLoads().map((l) => l.codeCache) }));`, flags);
    return { ...(JSON.parse(r.out) as { exports: unknown; loads: string[] }), err: r.err };
  };
  const bundle = (name: string, answer: number): string => {
    const file = join(dir, name);
    // Enough code that V8 has functions to cache, run at load as a bundle's modules are.
    const fns = Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n');
    writeFileSync(file, `${fns}\nlet sum = 0;\n${Array.from({ length: 50 }, (_, i) => `sum = f${i}(sum);`).join('\n')}\nexports.answer = ${answer};\nexports.sum = sum;\n`);
    return file;
  };

  it('a cache the build made is used by the next load, which gives the same exports', () => {
    const file = bundle('cached.js', 41);
    expect(load(file)).toEqual({ exports: { answer: 41, sum: 1225 }, loads: ['none'], err: '' });
    make(file);
    expect(readFileSync(`${file}.v8cache`).length).toBeGreaterThan(32);
    expect(load(file)).toEqual({ exports: { answer: 41, sum: 1225 }, loads: ['used'], err: '' });
  });

  it('a cache made from other content of the same length is not handed to V8: the file as it is runs', () => {
    const file = bundle('changed.js', 41);
    make(file);
    bundle('changed.js', 42);
    const r = load(file);
    expect(r.exports).toEqual({ answer: 42, sum: 1225 });
    expect(r.loads).toEqual(['stale']);
    expect(r.err).toMatch(/changed\.js\.v8cache was made from another build of it: compiled without it.*npm run build/);
  });

  it('a cache V8 refuses (made under other V8 flags) leaves the file compiled without it', () => {
    const file = bundle('flags.js', 7);
    make(file, ['--expose-gc']);
    const r = load(file);
    expect(r.exports).toEqual({ answer: 7, sum: 1225 });
    expect(r.loads).toEqual(['refused']);
    expect(r.err).toMatch(/flags\.js\.v8cache was made by another Node or under other V8 flags/);
    expect(load(file, ['--expose-gc']).loads).toEqual(['used']);
  });

  it('is made only where a bundle is first loaded', () => {
    const file = bundle('twice.js', 1);
    expect(() => inNode(`loader.loadBundle(${JSON.stringify(file)}); loader.makeCodeCache(${JSON.stringify(file)});`)).toThrow(/twice\.js is loaded already/);
  });
});
