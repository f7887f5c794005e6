/**
 * The idle collector's collection compacts: in a fresh node process running the built module, a heap
 * fragmented by garbage (one object in ten kept) commits barely more old space than it uses after
 * `exposeGc().collect()`, where V8's own heuristics often leave the fragmented pages committed; and a young
 * generation a burst grew is reported grown and is handed back by a collection SETTLE_MS after the first, as
 * the idle collector schedules it (V8 shrinks it only after a quiet stretch of allocation).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { assertGatewayBuilt } from '../../e2e/gateway-process';
import { SETTLE_MS } from '../../../src/gateway/runtime/idle-collector';

const MODULE = resolve(__dirname, '../../../dist/src/gateway/runtime/v8-gc.js');

const SCRIPT = `
const { getHeapSpaceStatistics } = require('node:v8');
const { exposeGc } = require(${JSON.stringify(MODULE)});
let all = [];
for (let i = 0; i < 400000; i++) all.push({ i, s: 'item ' + i, a: [i] });
const kept = all.filter((_, i) => i % 10 === 0);
all = undefined;
setImmediate(() => {
  exposeGc().collect();
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  process.stdout.write(JSON.stringify({ committed: old.space_size, used: old.space_used_size, kept: kept.length }));
});
`;

beforeAll(() => assertGatewayBuilt());

it('hands the pages a burst fragmented back: committed old space stays close to what is used', () => {
  const r = JSON.parse(execFileSync(process.execPath, ['-e', SCRIPT], { encoding: 'utf8' })) as { committed: number; used: number; kept: number };
  expect(r.kept).toBe(40_000);
  expect(r.committed).toBeLessThan(1.5 * r.used);
});

const YOUNG = `
const { getHeapSpaceStatistics } = require('node:v8');
const { exposeGc } = require(${JSON.stringify(MODULE)});
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const heap = exposeGc();
// A burst: short-lived objects with a working set large enough that the scavenger grows the young generation.
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }
keep = undefined;
const out = { grownAfterBurst: heap.youngGenerationGrown(), burst: young() };
heap.collect();
out.afterFirst = young();
setTimeout(() => {
  heap.collect();
  out.afterSettle = young();
  out.grownAfterSettle = heap.youngGenerationGrown();
  process.stdout.write(JSON.stringify(out));
}, ${SETTLE_MS});
`;

it('hands a grown young generation back at the settling collection, not at the first', () => {
  const r = JSON.parse(execFileSync(process.execPath, ['-e', YOUNG], { encoding: 'utf8' })) as Record<string, number | boolean>;
  expect(r.grownAfterBurst).toBe(true);
  expect(r.afterFirst).toBe(r.burst);
  expect(r.afterSettle as number).toBeLessThan(r.burst as number);
  expect(r.grownAfterSettle).toBe(false);
});
