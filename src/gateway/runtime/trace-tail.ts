/**
 * TraceTail: follows a session's trace files while another gateway instance writes them (the data dir is
 * shared): every `pollMs` it reads what each file gained since the last look, whole lines only, and hands
 * the valid records on in file order, as the local TraceFeed would have. Like the feed, a watcher gets only
 * what is written after it started. Polling, not fs.watch: inotify does not see writes made over NFS.
 */
import { open, stat } from 'node:fs/promises';
import type { OmniMessage } from '../../core/omnimessage/types';
import { listTraceFiles } from '../../core/trace/paths';
import { parseTraceLine } from '../../core/trace/reader';
import type { TraceListener } from './trace-feed';

export const TAIL_POLL_MS = 500;

async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(to - from);
    const { bytesRead } = await fh.read(buf, 0, buf.length, from);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Starts following; returns the function that stops it. */
export function tailTrace(dir: string, sessionId: string, listener: TraceListener, pollMs = TAIL_POLL_MS): () => void {
  const offsets = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const files = () => listTraceFiles(dir, sessionId).catch(() => []);

  const look = async () => {
    const out: OmniMessage[] = [];
    for (const f of await files()) {
      const from = offsets.get(f.path) ?? 0;
      const size = await sizeOf(f.path);
      if (size <= from) continue;
      const bytes = await readRange(f.path, from, size);
      const end = bytes.lastIndexOf(0x0a);
      if (end < 0) continue;
      offsets.set(f.path, from + end + 1);
      for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) {
        // A bad line is skipped, as the trace reader does.
        const record = line.trim() === '' ? undefined : parseTraceLine(line);
        if (record) out.push(record);
      }
    }
    if (out.length > 0 && !stopped) listener(out);
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void look().catch(() => undefined).then(next), pollMs);
    timer.unref();
  };
  // What is there already was loaded by the page; start at the current ends.
  void (async () => {
    for (const f of await files()) offsets.set(f.path, await sizeOf(f.path));
    next();
  })();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
