/**
 * One HTTP request over node:http/https on Node's keep-alive agents, with fetch's failure contract: a
 * network failure rejects as TypeError('fetch failed') with the socket's error as its cause, an abort (before
 * or during the body) with the signal's reason. `decodedBody` undoes gzip, deflate and br as bytes arrive.
 * The transport under both of our fetches (../llm/model-fetch.ts, ./plain-fetch.ts).
 */
import * as http from 'node:http';
import type * as Https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';

// Required at first use: loading TLS costs a start ~5 ms and heap that an idle gateway, or one on a plain-http model, never uses.
let httpsModule: typeof Https | undefined;
const https = (): typeof Https => (httpsModule ??= require('node:https') as typeof Https);

/** Statuses a client follows to `location`. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has a null body. */
const NULL_BODY: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** Byte chunks written as they are (shared bytes go out by reference); checked before bytes, as it may be bytes too. */
export interface Chunks {
  readonly chunks: readonly Uint8Array[];
  readonly size: number;
}
/** A request body: text, bytes, or chunks. */
export type SendBody = string | Uint8Array | Chunks;

const isChunks = (body: SendBody): body is Chunks => typeof body === 'object' && Array.isArray((body as Partial<Chunks>).chunks);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The http(s) URL a fetch was given as text or a URL; null for a Request, another scheme or what does not parse. */
export function httpUrl(input: string | URL | Request): URL | null {
  let url: URL;
  try {
    if (typeof input === 'string') url = new URL(input);
    else if (input instanceof URL) url = input;
    else return null;
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

/** Request headers as one lower-cased record, from any form fetch accepts. */
export function headersOf(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (Array.isArray(h)) for (const [k, v] of h) out[k.toLowerCase()] = v;
  else if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') (h as Headers).forEach((v, k) => void (out[k.toLowerCase()] = v));
  else for (const [k, v] of Object.entries(h as Record<string, string>)) out[k.toLowerCase()] = String(v);
  return out;
}

const bodySize = (body: SendBody): number => (typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : isChunks(body) ? body.size : body.byteLength);

/**
 * Sends the request and resolves with the response's head; the body is the caller's to read or `discard`.
 * A text body goes to the socket as text: encoding it into a Buffer first cost ~0.1 ms and an ArrayBuffer per 20 KB.
 */
export function send(url: URL, method: string, headers: Record<string, string>, body: SendBody | undefined, signal?: AbortSignal): Promise<http.IncomingMessage> {
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
      // As fetch does: a TypeError made here, the socket's error as its cause (SDKs keep only errors of their own realm).
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: e }));
    });
    req.once('response', (r) => {
      res = r;
      r.once('close', done);
      resolve(r);
    });
    if (typeof body === 'string') req.end(body, 'utf8');
    else if (body !== undefined && isChunks(body)) {
      // Written before the socket is ready, the chunks wait in the request and go out in one writev.
      for (const chunk of body.chunks) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

/**
 * Whether an answer redirects (its body is then drained here): the caller hands such a request to the global
 * fetch, which follows it, or under `redirect: 'manual'` answers with it. Under `redirect: 'error'` this
 * fails as fetch fails, and nothing is sent again.
 */
export function redirects(res: http.IncomingMessage, redirect: RequestInit['redirect']): boolean {
  if (!REDIRECTS.has(res.statusCode ?? 0) || !res.headers.location) return false;
  discard(res);
  if (redirect === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
  return true;
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

/**
 * The body of an answer given as fetch gives it: a status outside 200-599, or an abort that came with the
 * head, throws as fetch does; a status without a body gives null (what came is drained); otherwise the body.
 */
export function answerBody(res: http.IncomingMessage, signal?: AbortSignal): Readable | null {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    discard(res);
    throw new TypeError('fetch failed', { cause: new Error(`unexpected HTTP status ${status}`) });
  }
  if (signal?.aborted) {
    discard(res);
    throw abortReason(signal);
  }
  if (NULL_BODY.has(status)) {
    discard(res);
    return null;
  }
  return decodedBody(res);
}

/** The response's body as it arrives, its content-encoding undone (the response itself when it has none). */
function decodedBody(res: http.IncomingMessage): Readable {
  const decoder = decoderFor(String(res.headers['content-encoding'] ?? '').trim().toLowerCase());
  return decoder ? (pipeline(res, decoder, () => {}) as unknown as Readable) : res;
}
