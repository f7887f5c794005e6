/**
 * Trace write throughput of the real TraceWriter (engine.md §5): `records` typical records (assistant text,
 * tool call, tool output, token usage, in turn) appended to a fresh temp trace, (a) each append awaited
 * before the next (a chatty session: the descriptor is reopened whenever the queue drains) and (b) all
 * appends queued at once then flushed (a burst). Records/s and MB/s, medians over `runs`.
 */
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as b from '../src/core/omnimessage/builders';
import type { OmniMessage } from '../src/core/omnimessage/types';
import { TraceWriter } from '../src/core/trace/writer';
import { traceFilePath } from '../src/core/trace/paths';
import { removeDir, trackDir } from './harness/cleanup';
import { median } from './harness/stats';

export interface TraceThroughputOptions {
  records: number;
  runs: number;
}

export interface TraceThroughputResult {
  records: number;
  bytes: number;
  awaitedRecordsPerSec: number;
  awaitedMBPerSec: number;
  burstRecordsPerSec: number;
  burstMBPerSec: number;
}

const SESSION = 'session-2030-01-01-00-00-00-0000cafe';
const USAGE = { cache_read: 100, cache_write: 20, output: 30, total: 150 };

function sampleRecords(n: number): OmniMessage[] {
  const prose = 'The function reads the configuration, validates each key and returns the merged result. '.repeat(3);
  const out: OmniMessage[] = [];
  for (let i = 0; out.length < n; i++) {
    const id = `call_${i}`;
    out.push(b.assistantText(`${prose}(${i})`));
    out.push(b.toolCall({ name: 'read_file', arguments: JSON.stringify({ file_path: `src/module-${i}.ts` }), tool_call_id: id, stop_reason: 'completed' }));
    out.push(b.toolCallOutput({ output: 'export const x = 1;\n'.repeat(10), tool_call_id: id }));
    out.push(b.tokenUsage(USAGE, USAGE));
  }
  return out.slice(0, n);
}

async function once(dir: string, records: OmniMessage[], burst: boolean): Promise<{ ms: number; bytes: number }> {
  const w = new TraceWriter({ tracesDir: dir, sessionId: SESSION });
  let failed: Error | undefined;
  w.onError = (e) => (failed = e);
  const t0 = performance.now();
  if (burst) {
    for (const r of records) void w.append(r);
    await w.flush();
  } else {
    for (const r of records) await w.append(r);
  }
  const ms = performance.now() - t0;
  if (failed) throw failed;
  return { ms, bytes: (await stat(traceFilePath(dir, SESSION, 1))).size };
}

export async function runTraceThroughput(o: TraceThroughputOptions): Promise<TraceThroughputResult> {
  const root = await mkdtemp(join(tmpdir(), 'pg-bench-trace-'));
  trackDir(root);
  const records = sampleRecords(o.records);
  const awaited: number[] = [];
  const burst: number[] = [];
  let bytes = 0;
  try {
    for (let r = 0; r < o.runs + 1; r++) {
      const a = await once(join(root, `a${r}`), records, false);
      const s = await once(join(root, `b${r}`), records, true);
      bytes = a.bytes;
      // the first round warms the JIT and the file system
      if (r > 0) {
        awaited.push(a.ms);
        burst.push(s.ms);
      }
    }
  } finally {
    await removeDir(root);
  }
  const rate = (ms: number) => (o.records * 1000) / ms;
  const mbps = (ms: number) => (bytes / 2 ** 20) / (ms / 1000);
  return {
    records: o.records,
    bytes,
    awaitedRecordsPerSec: rate(median(awaited)),
    awaitedMBPerSec: mbps(median(awaited)),
    burstRecordsPerSec: rate(median(burst)),
    burstMBPerSec: mbps(median(burst)),
  };
}
