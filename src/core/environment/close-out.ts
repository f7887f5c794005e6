/**
 * The central close-out (engine.md §4.2): runs one tool body under a merged abort signal (user signal +
 * `timeoutMs`), streams its content through a `ToolOutputFrame`, passes forwarded child messages through,
 * and closes with exactly one complete output. Status priority: user abort (`aborted`) > timeout
 * (`failed`) > throw (`failed`) > the tool's own report (default `completed`). An aborted tool gets a
 * grace period to wind down (kill its processes, report what it has), then the call closes without it.
 */
import type { OmniMessage, StopReason } from '../omnimessage/types';
import type { BuiltinTool, ToolExecutionContext, ToolResult } from '../interfaces';
import { AsyncQueue, errorMessage, sleep } from './async-utils';
import { ABORT_GRACE_MS } from './limits';
import type { ToolOutputFrame } from './output-frame';

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

export const INTERRUPTED_NOTE = '[interrupted: tool aborted by user]';
export const timeoutNote = (ms: number) => `[tool timeout: exceeded ${ms}ms]`;
export const toolErrorNote = (msg: string) => `[tool error] ${msg}`;

/** Yields content deltas and forwarded messages, then the closing messages. Never throws. */
export async function* runWithCloseOut<A>(tool: BuiltinTool<A>, args: A, o: CloseOutOptions): AsyncGenerator<OmniMessage> {
  const { frame } = o;
  const controller = new AbortController();
  const queue = new AsyncQueue<PumpEvent>();
  let userAborted = false;
  let timedOut = false;
  let toolSettled = false;
  let closed = false;

  /** Both causes are recorded (the user's abort outranks a timeout that fired first); the first one aborts the tool. */
  const interrupt = (why: 'user' | 'timeout') => {
    if (toolSettled) return;
    const first = !userAborted && !timedOut;
    if (why === 'user') userAborted = true;
    else timedOut = true;
    if (!first) return;
    controller.abort(why === 'user' ? o.signal?.reason : new Error(`tool timeout after ${o.timeoutMs}ms`));
    queue.push({ kind: 'interrupt' });
  };
  const onUserAbort = () => interrupt('user');
  const timer = o.timeoutMs > 0 ? setTimeout(() => interrupt('timeout'), o.timeoutMs) : undefined;
  if (o.signal?.aborted) interrupt('user');
  else o.signal?.addEventListener('abort', onUserAbort, { once: true });

  const ctx: ToolExecutionContext = {
    ...o.context,
    signal: controller.signal,
    forward: (msg) => {
      if (!closed) queue.push({ kind: 'forward', msg });
    },
  };

  let result: ToolResult = {};
  let thrown: unknown;
  let threw = false;
  let settled = false;
  const graceStop = new AbortController();
  try {
    if (!userAborted) {
      void (async () => {
        try {
          const gen = tool.run(args, ctx);
          for (;;) {
            const step = await gen.next();
            if (step.done) {
              toolSettled = true;
              queue.push({ kind: 'done', result: step.value ?? {} });
              return;
            }
            if (typeof step.value === 'string' && step.value !== '') queue.push({ kind: 'content', text: step.value });
          }
        } catch (error) {
          toolSettled = true;
          queue.push({ kind: 'error', error });
        }
      })();
    } else {
      settled = true;
    }

    const startGrace = () => sleep(o.abortGraceMs ?? ABORT_GRACE_MS, graceStop.signal).then(() => 'grace' as const);
    let graceOver: Promise<'grace'> | null = null;
    while (!settled) {
      const ev = graceOver ? await Promise.race([queue.next(), graceOver]) : await queue.next();
      if (ev === 'grace') break;
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
          result = ev.result;
          settled = true;
          break;
        case 'error':
          thrown = ev.error;
          threw = true;
          settled = true;
          break;
        case 'interrupt':
          graceOver ??= startGrace();
          break;
      }
    }

    let stopReason: StopReason = result.stop_reason ?? 'completed';
    const notes: string[] = [];
    if (result.note) notes.push(result.note);
    if (userAborted) {
      stopReason = 'aborted';
      notes.push(INTERRUPTED_NOTE);
    } else if (timedOut) {
      stopReason = 'failed';
      notes.push(timeoutNote(o.timeoutMs));
    } else if (threw) {
      stopReason = 'failed';
      notes.push(toolErrorNote(errorMessage(thrown)));
    }
    closed = true;
    for (const m of await frame.close({ stopReason, notes, images: result.images })) yield m;
  } finally {
    closed = true;
    graceStop.abort();
    if (timer) clearTimeout(timer);
    o.signal?.removeEventListener('abort', onUserAbort);
    // A consumer that stops early must not leave the tool running.
    if (!toolSettled) controller.abort(new Error('tool call closed'));
  }
}
