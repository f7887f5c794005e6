/**
 * The model SDK's `fetch`: a text or byte body (or none) to an http(s) URL goes out over node:http/https on
 * Node's keep-alive agents; the answer is a standard `Response` streaming the socket (gzip, deflate, br
 * undone; `nodeBodyOf` hands a reader the Node stream itself), and an abort ends the request or the body
 * with the signal's reason. A `ChunkedBody` goes out as its chunks in one gathered write (shared bytes, such
 * as a prompt's JSON, by reference). Other bodies and redirects go to the global fetch. Hand-written because
 * undici's fetch spends ~0.5 ms of CPU per request in the Fetch standard's machinery.
 */
import * as http from 'node:http';
import type * as Https from 'node:https';
import { pipeline, Readable } from 'node:stream';
import * as zlib from 'node:zlib';

// Required at first use: loading TLS costs a start ~5 ms and heap that an idle gateway, or one on a plain-http model, never uses.
let httpsModule: typeof Https | undefined;
const https = (): typeof Https => (httpsModule ??= require('node:https') as typeof Https);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose Response must have a null body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A body made of chunks, written as they are: a 40 KB request whose prompt is an agent's shared bytes then
 * costs no joined copy. It is an (empty) Uint8Array so that the SDK passes it through untouched, as it does
 * bytes; only `modelFetch` reads its chunks (the global fetch gets them as a Blob).
 */
export class ChunkedBody extends Uint8Array {
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }
  constructor(
    readonly chunks: readonly Uint8Array[],
    readonly size: number,
  ) {
    super(0);
  }
  /** The chunks as a Blob, for the global fetch (which, given bytes, cannot resend them after a 307/308). */
  blob(): Blob {
    return new Blob(this.chunks as Uint8Array[]);
  }
}

export async function modelFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body;
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  const url = typeof input === 'string' ? parseUrl(input) : input instanceof URL ? input : null;
  if (!plainBody || !url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fetch(input, forGlobalFetch(init));
  const signal = init.signal ?? undefined;
  const res = await send(url, init.method ?? 'GET', headersOf(init.headers), body ?? undefined, signal);
  if (REDIRECTS.has(res.statusCode ?? 0) && res.headers.location) {
    discard(res);
    return fetch(input, forGlobalFetch(init));
  }
  return toResponse(res, url, signal);
}

/** The global fetch knows nothing of chunks: it gets them as a Blob. */
const forGlobalFetch = (init: RequestInit): RequestInit => (init.body instanceof ChunkedBody ? { ...init, body: init.body.blob() } : init);

function parseUrl(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

function headersOf(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) h.forEach((v, k) => void (out[k] = v));
  else if (Array.isArray(h)) for (const [k, v] of h) out[k.toLowerCase()] = v;
  else for (const [k, v] of Object.entries(h as Record<string, string>)) out[k.toLowerCase()] = v;
  return out;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

const bodySize = (body: string | Uint8Array): number => (typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body instanceof ChunkedBody ? body.size : body.byteLength);

/** A text body goes to the socket as text: encoding it into a Buffer first cost ~0.1 ms and an ArrayBuffer per 20 KB. */
function send(url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, signal?: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    if (body !== undefined) headers['content-length'] = String(bodySize(body));
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const req = (url.protocol === 'https:' ? https() : http).request(url, { method, headers });
    let res: http.IncomingMessage | undefined;
    const onAbort = () => {
      const reason = abortReason(signal!) as Error;
      res?.destroy(reason);
      req.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    // Every error is listened to: an abort after the answer began destroys the request with its reason too.
    req.on('error', (e) => {
      done();
      // As fetch does: a TypeError made here, the socket's error as its cause (the SDK keeps only errors of its own realm).
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: e }));
    });
    req.once('response', (r) => {
      res = r;
      r.once('close', done);
      resolve(r);
    });
    if (typeof body === 'string') req.end(body, 'utf8');
    else if (body instanceof ChunkedBody) {
      // Written before the socket is ready, the chunks wait in the request and go out in one writev.
      for (const chunk of body.chunks) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

/** A body nobody will read: drained, and its late errors heard (an unheard 'error' would end the process). */
function discard(res: http.IncomingMessage): void {
  res.on('error', () => undefined);
  res.resume();
}

/** Decoders flush what they have at once (a streamed answer must not wait for a full block) and accept a cut-short end. */
const SYNC = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_SYNC = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

function decoderFor(encoding: string): NodeJS.ReadWriteStream | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip(SYNC);
  if (encoding === 'deflate') return zlib.createInflate(SYNC);
  if (encoding === 'br') return zlib.createBrotliDecompress(BROTLI_SYNC);
  return undefined;
}

function toResponse(res: http.IncomingMessage, url: URL, signal?: AbortSignal): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    discard(res);
    throw new TypeError('fetch failed', { cause: new Error(`unexpected HTTP status ${status}`) });
  }
  if (signal?.aborted) {
    discard(res);
    throw abortReason(signal);
  }
  let stream: Readable | null = res;
  if (NULL_BODY.has(status)) {
    discard(res);
    stream = null;
  } else {
    const decoder = decoderFor(String(res.headers['content-encoding'] ?? '').trim().toLowerCase());
    if (decoder) stream = pipeline(res, decoder, () => {}) as unknown as Readable;
  }
  const response = new Response(stream ? lazyWebBody(stream) : null, {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
  Object.defineProperty(response, 'url', { value: url.href });
  if (stream) nodeBodies.set(response, stream);
  return response;
}

const nodeBodies = new WeakMap<Response, Readable>();

/**
 * The Node stream under a Response made here, for a reader that takes the body from it instead of from
 * `response.body` (one or the other, never both); undefined for a Response from elsewhere.
 */
export function nodeBodyOf(response: Response): Readable | undefined {
  return nodeBodies.get(response);
}

/** `response.body`: the web stream over the Node stream, set up only if something reads it. */
function lazyWebBody(stream: Readable): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= (Readable.toWeb(stream) as ReadableStream<Uint8Array>).getReader();
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      },
      cancel(reason) {
        if (reader) return reader.cancel(reason);
        stream.destroy();
        return undefined;
      },
    },
    { highWaterMark: 0 },
  );
}
