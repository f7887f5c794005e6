/**
 * capYoungGeneration, in fresh node processes running the built module: a burst spread over event-loop
 * turns (as the gateway's work is) grows V8's young generation to 32 MiB without it, and with a 4 MiB stop
 * the young generation ends at 4 MiB or one doubling above, also when V8's default factor is put back
 * for each bundle the loader compiles, which takes its code cache meanwhile; undone, V8 grows it again.
 * In a heap many times the stop, it grows with the heap.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertGatewayBuilt } from '../../e2e/gateway-process';

const MODULE = resolve(__dirname, '../../../dist/src/gateway/runtime/v8-young-generation.js');
const LOADER = resolve(__dirname, '../../../dist/src/gateway/bundle-loader.js');
const MiB = 1024 * 1024;

const burst = (setup: string): { before: number; after: number; afterUndo?: number } => {
  const script = `
const { capYoungGeneration, youngGenerationBytes } = require(${JSON.stringify(MODULE)});
const turn = () => new Promise((r) => setImmediate(r));
async function burst() {
  let keep = [];
  for (let t = 0; t < 300; t++) {
    for (let i = 0; i < 10000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }
    await turn();
  }
}
(async () => {
  const out = { before: youngGenerationBytes() };
  ${setup}
  await burst();
  out.after = youngGenerationBytes();
  if (typeof undo === 'function') { undo(); await burst(); out.afterUndo = youngGenerationBytes(); }
  process.stdout.write(JSON.stringify(out));
})();
`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { before: number; after: number; afterUndo?: number };
};

beforeAll(() => assertGatewayBuilt());

it('without a stop, the burst grows the young generation to V8\'s 32 MiB', () => {
  const r = burst('');
  expect(r.before).toBeLessThan(4 * MiB);
  expect(r.after).toBe(32 * MiB);
});

it('with a 4 MiB stop it ends at 4 MiB, or one doubling above; undone, V8 grows it again', () => {
  const r = burst('const undo = capYoungGeneration(4 * 1024 * 1024);');
  expect(r.after).toBeGreaterThanOrEqual(4 * MiB);
  expect(r.after).toBeLessThanOrEqual(8 * MiB);
  expect(r.afterUndo).toBe(32 * MiB);
});

it('in a heap sixteen times the stop and more, the young generation grows to a sixteenth of it', () => {
  // ~400 MiB kept: a sixteenth is past 16 MiB, so the 4 MiB stop no longer holds and V8 takes its 32 MiB.
  const r = burst(`const big = Array.from({ length: 400 }, () => new Array(128 * 1024).fill(1.5));
  capYoungGeneration(4 * 1024 * 1024);`);
  expect(r.after).toBe(32 * MiB);
});

it('holds when loading bundles puts V8\'s default factor back for their compiles', () => {
  const r = burst(`capYoungGeneration(4 * 1024 * 1024);
  const { loadBundle } = require(${JSON.stringify(LOADER)});
  const dir = require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'pg-young-'));
  let n = 0;
  const loads = setInterval(() => {
    const file = require('node:path').join(dir, 'b' + n++ + '.js');
    require('node:fs').writeFileSync(file, 'exports.n = ' + n + ';');
    loadBundle(file);
  }, 20);
  process.on('exit', () => require('node:fs').rmSync(dir, { recursive: true, force: true }));
  setTimeout(() => clearInterval(loads), 2000).unref();`);
  expect(r.after).toBeGreaterThanOrEqual(4 * MiB);
  expect(r.after).toBeLessThanOrEqual(8 * MiB);
});

it('a bundle loaded while it holds compiles from its code cache, made under V8\'s default factor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-young-cache-'));
  try {
    const file = join(dir, 'cached.js');
    writeFileSync(file, Array.from({ length: 50 }, (_, i) => `exports.f${i} = (x) => x + ${i};`).join('\n'));
    execFileSync(process.execPath, ['-e', `require(${JSON.stringify(LOADER)}).makeCodeCache(${JSON.stringify(file)})`]);
    // Loaded half-way through the burst's 300 turns, counted in turns so a fast or a loaded machine alike
    // loads it while the burst runs.
    const r = burst(`capYoungGeneration(4 * 1024 * 1024);
    let turns = 0;
    const tick = () => {
      if (++turns < 150) return void setImmediate(tick);
      const loader = require(${JSON.stringify(LOADER)});
      out.grownAtLoad = youngGenerationBytes();
      loader.loadBundle(${JSON.stringify(file)});
      out.codeCache = loader.bundleLoads()[0].codeCache;
    };
    setImmediate(tick);`) as { after: number; grownAtLoad?: number; codeCache?: string };
    expect(r.grownAtLoad).toBeGreaterThanOrEqual(4 * MiB);
    expect(r.codeCache).toBe('used');
    expect(r.after).toBeLessThanOrEqual(8 * MiB);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
