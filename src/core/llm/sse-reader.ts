/**
 * Reads a streamed Chat Completions answer (server-sent events; lines end with \n, \r\n or \r) from the
 * body's Node stream. Each `next()` gives every chunk that arrived since the last (each `data:` field's
 * JSON, in order), or the end (nothing after `[DONE]` counts), the body's error, a provider error event
 * (as `errorEvent` makes it), the caller's abort, or the idle timeout, counted only while the caller waits.
 * Hand-written: the SDK's iterator and a race per chunk cost more CPU per token than the rest of streaming.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export type SseRead =
  | { kind: 'chunks'; chunks: unknown[] }
  | { kind: 'end' }
  | { kind: 'error'; error: unknown }
  | { kind: 'abort' }
  | { kind: 'timeout' };

const ignore = (): void => undefined;

export class SseJsonReader {
  private queue: unknown[] = [];
  private ended = false;
  private failed: { error: unknown } | undefined;
  private done = false;
  private waiter: ((r: SseRead) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly decoder = new StringDecoder('utf8');
  /** The text after the last complete line. */
  private rest = '';
  private data = '';
  private hasData = false;

  constructor(
    private readonly body: Readable,
    private readonly signal: AbortSignal | undefined,
    private readonly idleMs: number,
    private readonly errorEvent: (error: unknown) => unknown,
  ) {
    body.on('data', this.onData);
    body.on('end', this.onEnd);
    body.on('error', this.onError);
    body.on('close', this.onClose);
    signal?.addEventListener('abort', this.wake, { once: true });
  }

  next(): Promise<SseRead> {
    const now = this.settled();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      this.waiter = resolve;
      if (this.idleMs <= 0) return;
      if (this.timer) this.timer.refresh();
      else this.timer = setTimeout(this.onIdle, this.idleMs);
    });
  }

  /** Stops listening; the body's later errors are still heard (an unheard 'error' would end the process). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.wake);
    this.body.off('data', this.onData);
    this.body.off('end', this.onEnd);
    this.body.off('error', this.onError);
    this.body.off('close', this.onClose);
    this.body.on('error', ignore);
  }

  /** What a wait gets now, if anything: an abort first, then the chunks that arrived, then how the body ended. */
  private settled(): SseRead | undefined {
    if (this.signal?.aborted) return { kind: 'abort' };
    if (this.queue.length > 0) {
      const chunks = this.queue;
      this.queue = [];
      return { kind: 'chunks', chunks };
    }
    if (this.failed) return { kind: 'error', error: this.failed.error };
    if (this.ended) return { kind: 'end' };
    return undefined;
  }

  private readonly wake = (): void => {
    const waiter = this.waiter;
    if (!waiter) return;
    const now = this.settled();
    if (!now) return;
    this.waiter = undefined;
    waiter(now);
  };

  private readonly onIdle = (): void => {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    waiter({ kind: 'timeout' });
  };

  private readonly onData = (bytes: Buffer): void => {
    if (this.failed || this.ended) return;
    this.lines(this.decoder.write(bytes), false);
    this.wake();
  };

  private readonly onEnd = (): void => {
    if (this.failed || this.ended) return;
    // An event without its closing blank line at the end of the body is dropped, as the format says.
    this.lines(this.decoder.end(), true);
    this.ended = true;
    this.wake();
  };

  private readonly onError = (error: unknown): void => {
    if (this.failed || this.ended) return;
    this.failed = { error };
    this.wake();
  };

  private readonly onClose = (): void => {
    if (this.failed || this.ended) return;
    this.failed = { error: new Error('the connection closed before the answer ended') };
    this.wake();
  };

  private lines(text: string, last: boolean): void {
    let s = this.rest + text;
    // A \r at the end may be the first half of a \r\n whose \n comes with the next piece: it waits for it.
    const heldCr = !last && s.endsWith('\r');
    if (heldCr) s = s.slice(0, -1);
    if (s.includes('\r')) s = s.replace(/\r\n?/g, '\n');
    let start = 0;
    for (let nl = s.indexOf('\n'); nl !== -1 && !this.failed; nl = s.indexOf('\n', start)) {
      this.field(s.slice(start, nl));
      start = nl + 1;
    }
    this.rest = heldCr ? `${s.slice(start)}\r` : s.slice(start);
  }

  private field(line: string): void {
    if (line === '') return this.dispatch();
    const colon = line.indexOf(':');
    if (colon === 0) return;
    const name = colon < 0 ? line : line.slice(0, colon);
    if (name !== 'data') return;
    const value = colon < 0 ? '' : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    this.data = this.hasData ? `${this.data}\n${value}` : value;
    this.hasData = true;
  }

  private dispatch(): void {
    if (!this.hasData) return;
    const data = this.data;
    this.data = '';
    this.hasData = false;
    if (this.done || data === '') return;
    if (data.startsWith('[DONE]')) {
      this.done = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (error) {
      this.failed = { error };
      return;
    }
    const error = parsed !== null && typeof parsed === 'object' ? (parsed as { error?: unknown }).error : undefined;
    if (error) this.failed = { error: this.errorEvent(error) };
    else this.queue.push(parsed);
  }
}
