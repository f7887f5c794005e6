/**
 * `baselineWasmOnly()` keeps V8 from compiling Node fetch's HTTP parser (wasm) a second time with TurboFan:
 * in a fresh node process running the built module, the first fetch's compiler memory (V8's peak malloced
 * memory) stays a few MB, where the same fetch without it takes tens of MB.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { assertGatewayBuilt } from '../../e2e/gateway-process';

const MODULE = resolve(__dirname, '../../../dist/src/gateway/runtime/v8-wasm.js');

const script = (baseline: boolean) => `
const { getHeapStatistics } = require('node:v8');
const { createServer } = require('node:http');
${baseline ? `require(${JSON.stringify(MODULE)}).baselineWasmOnly();` : ''}
const server = createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', async () => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
  const body = await res.text();
  // TurboFan's wasm tier-up runs on helper threads after the first call: give it time to happen.
  setTimeout(() => {
    server.close();
    process.stdout.write(JSON.stringify({ body, peak: getHeapStatistics().peak_malloced_memory }));
  }, 1500);
});
`;

const run = (baseline: boolean) => JSON.parse(execFileSync(process.execPath, ['-e', script(baseline)], { encoding: 'utf8' })) as { body: string; peak: number };

beforeAll(() => assertGatewayBuilt());

it('answers fetches on baseline wasm, without the optimizing compiler memory', () => {
  const baseline = run(true);
  const tiered = run(false);
  expect(baseline.body).toBe('ok');
  expect(tiered.body).toBe('ok');
  expect(baseline.peak).toBeLessThan(10 * 1024 * 1024);
  expect(tiered.peak).toBeGreaterThan(2 * baseline.peak);
});
