/**
 * Append-only trace writer (engine.md §5). Appends are serialized in call order on an O_APPEND handle;
 * an envelope's line is never split across writes (lines queued meanwhile share the next write), so a
 * crash can tear at most the last line, which the next writer heals (drops the torn fragment) first. Partials and origin-tagged messages are
 * never written. I/O errors never reject: they go to `onError` (tracing is best-effort for the run);
 * `onWritten` sees each batch of envelopes once it is on disk, so a host can index exactly what the trace holds.
 * A trace folder is made once per process (every session of a day shares it, concurrent first writes one
 * mkdir), and again only if it vanished. A writer keeps its descriptor for `holdMs` after its last write:
 * the lines of one Task come in bursts within that, and a session at rest pins no descriptor.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HeldFileHandle } from '../held-file-handle';
import { attachedJson, chunksAfter, chunksOf, jsonPieces, type JsonPiece } from '../json-splice';
import { isTraceable } from '../omnimessage/guards';
import type { OmniMessage } from '../omnimessage/types';
import { listTraceFiles, traceFilePath } from './paths';

/** One queued job: a line to append, or a rotation barrier. */
type Job = { kind: 'line'; msg: OmniMessage; chunks: Uint8Array[]; done: () => void } | { kind: 'rotate'; head: OmniMessage[]; done: () => void };

/**
 * A message's line as chunks; a payload that carries its field's JSON (a session_meta's shared prompt) is
 * spliced, the shared bytes written as they are (one gathered write), never copied into a line of its own.
 */
function line(msg: OmniMessage): Uint8Array[] {
  const attached = attachedJson(msg.payload);
  if (!attached) return [Buffer.from(JSON.stringify(msg) + '\n', 'utf8')];
  const given: Record<string, readonly JsonPiece[]> = {};
  for (const key of Object.keys(attached)) given[key] = attached[key]!();
  return chunksOf([...jsonPieces(msg, { payload: jsonPieces(msg.payload, given) }), '\n']).chunks;
}

/** Trace folders this process made or found. */
const madeDirs = new Set<string>();
/** Folders being made now: a burst of new sessions waits for one mkdir instead of issuing one each. */
const makingDirs = new Map<string, Promise<void>>();

function makeDir(dir: string): Promise<void> {
  let p = makingDirs.get(dir);
  if (!p) {
    // Traces hold everything tools printed (vault values included): only their owner may read them.
    p = mkdir(dir, { recursive: true, mode: 0o700 })
      .then(() => void madeDirs.add(dir))
      .finally(() => makingDirs.delete(dir));
    makingDirs.set(dir, p);
  }
  return p;
}

async function openInDir(p: string): Promise<FileHandle> {
  const dir = dirname(p);
  if (madeDirs.has(dir)) {
    try {
      return await open(p, 'a+', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      madeDirs.delete(dir);
    }
  }
  await makeDir(dir);
  return open(p, 'a+', 0o600);
}

/** How long a writer keeps its descriptor once its queue is empty. */
export const TRACE_HOLD_MS = 1000;

export class TraceWriter {
  readonly sessionId: string;
  onError?: (err: Error) => void;
  /** Envelopes that reached the disk, in trace order (never called for a failed write). */
  onWritten?: (msgs: readonly OmniMessage[]) => void;
  private readonly dir: string;
  private fileIndex: number;
  private readonly queue: Job[] = [];
  private draining?: Promise<void>;
  private healedPath?: string;
  /** The O_APPEND descriptor of the current file, held `holdMs` past the last write. */
  private readonly fh: HeldFileHandle;

  /**
   * `fresh`: the session is new, so its first file has no torn tail to heal (no stat before its first write).
   * `holdMs`: how long the descriptor outlives the last write (default TRACE_HOLD_MS; 0 closes it at once).
   */
  constructor(opts: { tracesDir: string; sessionId: string; index?: number; fresh?: boolean; holdMs?: number }) {
    this.dir = opts.tracesDir;
    this.sessionId = opts.sessionId;
    this.fileIndex = opts.index ?? 1;
    this.fh = new HeldFileHandle(() => this.openFile(), opts.holdMs ?? TRACE_HOLD_MS, () => this.draining !== undefined);
    if (opts.fresh) this.healedPath = this.path;
  }

  /** A writer that appends to the latest existing file of the session (index 1 when there is none). */
  static async resume(tracesDir: string, sessionId: string): Promise<TraceWriter> {
    const files = await listTraceFiles(tracesDir, sessionId);
    return new TraceWriter({ tracesDir, sessionId, index: files.at(-1)?.index ?? 1 });
  }

  get index(): number {
    return this.fileIndex;
  }
  get path(): string {
    return traceFilePath(this.dir, this.sessionId, this.fileIndex);
  }

  /** Resolves once this envelope's line is on disk (or its write failed and was reported). */
  append(msg: OmniMessage): Promise<void> {
    if (!isTraceable(msg)) return this.flush();
    return new Promise((done) => this.enqueue({ kind: 'line', msg, chunks: line(msg), done }));
  }

  /** Later appends go to the next file, which starts with `head` (session_meta + tool_list_ready). */
  rotate(head: OmniMessage[]): Promise<void> {
    return new Promise((done) => this.enqueue({ kind: 'rotate', head: head.filter(isTraceable), done }));
  }

  /** Resolves when every queued append is on disk. */
  flush(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    // drain() always awaits before it can finish, so this assignment happens before it clears the marker.
    if (!this.draining) this.draining = this.drain();
  }

  /**
   * Lines queued while a write is in flight go out together in the next single write(2): each envelope
   * still lands whole and in order, and a crash can still tear only the tail.
   */
  private async drain(): Promise<void> {
    for (;;) {
      await this.writeQueued();
      // Lines queued since the last write are picked up here; the marker is cleared in the same synchronous
      // step that sees the queue empty, so a later append always starts a new drain.
      if (this.queue.length === 0) {
        this.draining = undefined;
        // Idle sessions must not pin descriptors: this one closes unless a write comes within the hold.
        this.fh.idle();
        return;
      }
    }
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const job = this.queue[0];
      if (job.kind === 'rotate') {
        this.queue.shift();
        const ok = await this.guard(async () => {
          await this.fh.close();
          this.fileIndex += 1;
          if (job.head.length) await this.writeAll(job.head.flatMap(line));
        });
        if (ok && job.head.length) this.written(job.head);
        job.done();
        continue;
      }
      const batch: Extract<Job, { kind: 'line' }>[] = [];
      while (this.queue.length > 0 && this.queue[0].kind === 'line') batch.push(this.queue.shift() as Extract<Job, { kind: 'line' }>);
      const ok = await this.guard(() => this.writeAll(batch.length === 1 ? batch[0].chunks : batch.flatMap((j) => j.chunks)));
      if (ok) this.written(batch.map((j) => j.msg));
      for (const j of batch) j.done();
    }
  }

  /** True when the work succeeded; a failure is reported to `onError`. */
  private async guard(work: () => Promise<void>): Promise<boolean> {
    try {
      await work();
      return true;
    } catch (e) {
      await this.fh.close();
      this.onError?.(e instanceof Error ? e : new Error(String(e)));
      return false;
    }
  }

  /** An observer's mistake must not stop the trace. */
  private written(msgs: readonly OmniMessage[]): void {
    try {
      this.onWritten?.(msgs);
    } catch (e) {
      this.onError?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** One write(2) for all the chunks (writev), again for what a short write left. */
  private async writeAll(chunks: Uint8Array[]): Promise<void> {
    const fh = await this.fh.get();
    let left = chunks;
    while (left.length > 0) {
      const { bytesWritten } = left.length === 1 ? await fh.write(left[0]!) : await fh.writev(left);
      left = chunksAfter(left, bytesWritten);
    }
  }

  private async openFile(): Promise<FileHandle> {
    const p = this.path;
    const fh = await openInDir(p);
    if (this.healedPath !== p) {
      // Once per file, on first open: crash recovery assumes no other writer is mid-line in this file yet.
      try {
        await healTornTail(fh);
      } catch (e) {
        await fh.close().catch(() => undefined);
        throw e;
      }
      this.healedPath = p;
    }
    return fh;
  }
}

/** If the file does not end in a newline, drop the torn fragment after the last one (or complete it when it is whole JSON). */
async function healTornTail(fh: FileHandle): Promise<void> {
  const { size } = await fh.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await fh.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return;
  // Scan back for the last newline in bounded chunks (lines can be large but never the whole file twice).
  const chunk = 64 * 1024;
  let end = size;
  let cut = 0;
  const tailParts: Buffer[] = [];
  while (end > 0) {
    const start = Math.max(0, end - chunk);
    const buf = Buffer.alloc(end - start);
    await fh.read(buf, 0, buf.length, start);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) {
      cut = start + nl + 1;
      tailParts.unshift(buf.subarray(nl + 1));
      break;
    }
    tailParts.unshift(buf);
    end = start;
  }
  const tail = Buffer.concat(tailParts).toString('utf8');
  let whole = false;
  try {
    JSON.parse(tail);
    whole = true;
  } catch {
    whole = false;
  }
  if (whole) await fh.write('\n');
  else await fh.truncate(cut);
}
