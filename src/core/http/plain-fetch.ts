/**
 * `plainFetch`: fetch for API calls (Slack's Web API and Bolt, Discord's REST) without Node's fetch implementation,
 * whose first use loads undici's Fetch-standard classes and wasm HTTP parser: ~9 MB of an idle gateway's RSS.
 * A text, byte or URLSearchParams body (or none) to an http(s) URL goes out over ./node-send.ts, and the answer
 * is a `PlainResponse`: status, headers, and the body (read as it arrives) once as text, JSON, bytes or a stream.
 * Any other body (an upload's FormData, a Blob, a stream) and a redirect to follow go to the global fetch,
 * which loads then. Failures and aborts reject as fetch's do (TypeError('fetch failed') with the cause).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { answerBody, headersOf, httpUrl, redirects, send } from './node-send';

/** Response headers as fetch's Headers reads them: names case-insensitive, repeated values joined by ", ", iterated by name. */
export class PlainHeaders {
  readonly #values = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const had = this.#values.get(name);
      this.#values.set(name, had === undefined ? raw[i + 1]! : `${had}, ${raw[i + 1]!}`);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) yield [name, this.#values.get(name)!];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string, headers: PlainHeaders) => void): void {
    for (const [name, value] of this.entries()) fn(value, name, this);
  }
}

/**
 * The answer of `plainFetch`: what the SDKs using it read of a fetch Response. The body is read as it
 * arrives, whether or not anyone asks for it: an SDK that throws on a status without reading the body (Slack's
 * Web API on a 429) must not leave the keep-alive connection held until the server drops it.
 */
export class PlainResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  #used = false;
  readonly #bytes: Promise<Buffer>;
  readonly #hasBody: boolean;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: PlainHeaders,
    readonly url: string,
    /** The body as it arrives, content-encoding undone; null for a status without one. */
    stream: Readable | null,
  ) {
    this.ok = status >= 200 && status <= 299;
    this.#hasBody = stream !== null;
    this.#bytes = stream ? collect(stream) : Promise.resolve(Buffer.alloc(0));
    // A failure (an abort mid-body) reaches whoever reads the body; unread, it is nobody's to hear.
    this.#bytes.catch(() => undefined);
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body as a Node stream (read once, as with the methods); null for a status without one. */
  get body(): Readable | null {
    if (!this.#hasBody) return null;
    const take = (): Promise<Buffer> => this.#take();
    return Readable.from((async function* () {
      yield await take();
    })());
  }

  async text(): Promise<string> {
    // As fetch's text(): UTF-8, a leading byte order mark dropped.
    return new TextDecoder().decode(await this.#take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  #take(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return this.#bytes;
  }
}

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/** A body sent here, with the content type fetch would give it; undefined for one only the global fetch can send. */
function plainBody(body: RequestInit['body']): { bytes: string | Uint8Array | undefined; type?: string } | undefined {
  if (body === undefined || body === null) return { bytes: undefined };
  if (typeof body === 'string') return { bytes: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof Uint8Array) return { bytes: body };
  if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body) };
  if (body instanceof URLSearchParams) return { bytes: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  return undefined;
}

export async function plainFetch(input: string | URL, init: RequestInit = {}): Promise<PlainResponse | Response> {
  const url = httpUrl(input);
  const body = plainBody(init.body);
  if (!url || !body) return fetch(input, init);
  const headers = headersOf(init.headers);
  if (body.type) headers['content-type'] ??= body.type;
  headers.accept ??= '*/*';
  const signal = init.signal ?? undefined;
  const res = await send(url, (init.method ?? 'GET').toUpperCase(), headers, body.bytes, signal);
  if (redirects(res, init.redirect)) return fetch(input, init);
  return responseOf(res, url, signal);
}

function responseOf(res: IncomingMessage, url: URL, signal?: AbortSignal): PlainResponse {
  const body = answerBody(res, signal);
  return new PlainResponse(res.statusCode!, res.statusMessage ?? '', new PlainHeaders(res.rawHeaders), url.href, body);
}
