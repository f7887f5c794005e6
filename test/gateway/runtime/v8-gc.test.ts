/**
 * The idle collector's collection compacts: in a fresh node process running the built module, a heap
 * fragmented by garbage (one object in ten kept) commits barely more old space than it uses after
 * `exposeGc()()`, where V8's own heuristics often leave the fragmented pages committed.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { assertGatewayBuilt } from '../../e2e/gateway-process';

const MODULE = resolve(__dirname, '../../../dist/src/gateway/runtime/v8-gc.js');

const SCRIPT = `
const { getHeapSpaceStatistics } = require('node:v8');
const { exposeGc } = require(${JSON.stringify(MODULE)});
let all = [];
for (let i = 0; i < 400000; i++) all.push({ i, s: 'item ' + i, a: [i] });
const kept = all.filter((_, i) => i % 10 === 0);
all = undefined;
setImmediate(() => {
  exposeGc()();
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
