/**
 * The model SDK's `fetch`: a text or byte body (or none) to an http(s) URL goes out over node:http/https on
 * Node's keep-alive agents; the answer is a standard `Response` streaming the socket (gzip, deflate, br
 * undone; `nodeBodyOf` hands a reader the Node stream itself), and an abort ends the request or the body
 * with the signal's reason. A `ChunkedBody` goes out as its chunks in one gathered write (shared bytes, such
 * as a prompt's JSON, by reference). Other bodies and redirects to follow go to the global fetch (under
 * `redirect: 'error'` a redirect fails as fetch fails, sent once). Hand-written because
 * undici's fetch spends ~0.5 ms of CPU per request in the Fetch standard's machinery.
 */
import type * as http from 'node:http';
import { Readable } from 'node:stream';
import { answerBody, headersOf, httpUrl, redirects, send } from '../http/node-send';

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
  const url = httpUrl(input);
  if (!plainBody || !url) return fetch(input, forGlobalFetch(init));
  const signal = init.signal ?? undefined;
  const res = await send(url, init.method ?? 'GET', headersOf(init.headers), body ?? undefined, signal);
  if (redirects(res, init.redirect)) return fetch(input, forGlobalFetch(init));
  return toResponse(res, url, signal);
}

/** The global fetch knows nothing of chunks: it gets them as a Blob. */
const forGlobalFetch = (init: RequestInit): RequestInit => (init.body instanceof ChunkedBody ? { ...init, body: init.body.blob() } : init);

function toResponse(res: http.IncomingMessage, url: URL, signal?: AbortSignal): Response {
  const stream = answerBody(res, signal);
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode!;
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
