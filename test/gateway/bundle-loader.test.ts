/**
 * loadBundle (the executable's loader of the gateway bundle): a CommonJS file runs as a module with its
 * own require, module, exports, __filename and __dirname; a file spanning several read pieces arrives
 * whole; a missing file says to build; a non-ASCII byte is refused with its offset.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../../src/gateway/bundle-loader';

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
});
