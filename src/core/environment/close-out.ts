/**
 * The central close-out (engine.md §4.2): runs one tool body under a merged abort signal (user signal +
 * `timeoutMs`, see tool-abort.ts), streams its content through a `ToolOutputFrame`, passes forwarded
 * child messages through, and closes with exactly one complete output whose status and notes follow
 * close-out-notes.ts. An aborted tool gets a grace period to wind down (kill its processes, report what
 * it has), then the call closes without it.
 */
import type { OmniMessage } from '../omnimessage/types';
import type { BuiltinTool, ToolExecutionContext, ToolResult } from '../interfaces';
import { AsyncQueue, sleep } from './async-utils';
import { closingVerdict, type ToolEnd } from './close-out-notes';
import { ABORT_GRACE_MS } from './limits';
import type { ToolOutputFrame } from './output-frame';
import { ToolAbort } from './tool-abort';

export { INTERRUPTED_NOTE, timeoutNote, toolErrorNote } from './close-out-notes';

type PumpEvent =
  | { kind: 'content'; text: string }
  | { kind: 'forward'; msg: OmniMessage }
  | { kind: 'done'; result: ToolResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'interrupt' };

export interface CloseOutOptions {
  frame: ToolOutputFrame;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Everything of the context except the signal and `forward`, which the close-out owns. */
  context: Omit<ToolExecutionContext, 'signal' | 'forward'>;
  abortGraceMs?: number;
}

/** Yields content deltas and forwarded messages, then the closing messages. Never throws. */
export async function* runWithCloseOut<A>(tool: BuiltinTool<A>, args: A, o: CloseOutOptions): AsyncGenerator<OmniMessage> {
  const queue = new AsyncQueue<PumpEvent>();
  const abort = new ToolAbort(o.signal, o.timeoutMs, () => queue.push({ kind: 'interrupt' }));
  let closed = false;
  const ctx: ToolExecutionContext = {
    ...o.context,
    signal: abort.signal,
    forward: (msg) => {
      if (!closed) queue.push({ kind: 'forward', msg });
    },
  };
  const graceStop = new AbortController();
  try {
    let end: ToolEnd = { kind: 'abandoned' };
    if (!abort.userAborted) {
      pumpTool(tool, args, ctx, queue, () => abort.markSettled());
      const grace = (): Promise<'grace'> => sleep(o.abortGraceMs ?? ABORT_GRACE_MS, graceStop.signal).then(() => 'grace' as const);
      end = yield* streamUntilSettled(queue, o.frame, grace);
    }
    const { stopReason, notes } = closingVerdict(end, abort, o.timeoutMs);
    closed = true;
    const images = end.kind === 'returned' ? end.result.images : undefined;
    for (const m of await o.frame.close({ stopReason, notes, images })) yield m;
  } finally {
    closed = true;
    graceStop.abort();
    abort.dispose();
  }
}

/** Runs the tool body in the background, turning what it yields, returns or throws into queue events. */
function pumpTool<A>(tool: BuiltinTool<A>, args: A, ctx: ToolExecutionContext, queue: AsyncQueue<PumpEvent>, onSettled: () => void): void {
  void (async () => {
    try {
      const gen = tool.run(args, ctx);
      for (;;) {
        const step = await gen.next();
        if (step.done) {
          onSettled();
          queue.push({ kind: 'done', result: step.value ?? {} });
          return;
        }
        if (typeof step.value === 'string' && step.value !== '') queue.push({ kind: 'content', text: step.value });
      }
    } catch (error) {
      onSettled();
      queue.push({ kind: 'error', error });
    }
  })();
}

/**
 * Streams content (through the frame's cap) and forwarded messages until the tool returns or throws;
 * after an interruption, waits at most one grace period (`startGrace`) before abandoning it.
 */
async function* streamUntilSettled(
  queue: AsyncQueue<PumpEvent>,
  frame: ToolOutputFrame,
  startGrace: () => Promise<'grace'>,
): AsyncGenerator<OmniMessage, ToolEnd, undefined> {
  let graceOver: Promise<'grace'> | null = null;
  for (;;) {
    const ev = graceOver ? await Promise.race([queue.next(), graceOver]) : await queue.next();
    if (ev === 'grace') return { kind: 'abandoned' };
    switch (ev.kind) {
      case 'content': {
        const delta = frame.content(ev.text);
        if (delta) yield delta;
        break;
      }
      case 'forward':
        yield ev.msg;
        break;
      case 'done':
        return { kind: 'returned', result: ev.result };
      case 'error':
        return { kind: 'threw', error: ev.error };
      case 'interrupt':
        graceOver ??= startGrace();
        break;
    }
  }
}
