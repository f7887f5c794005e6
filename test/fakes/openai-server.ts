/**
 * A fake OpenAI-compatible Chat Completions server on 127.0.0.1 for tests and benchmarks, spoken to through the
 * real `openai` SDK (baseURL = `start()`'s `baseUrl`).
 *
 * - `POST …/chat/completions` with `stream: true` answers with real SSE framing (`data: {json}\n\n` … `data: [DONE]\n\n`).
 * - Scripted turns: `enqueue(...)` adds responses consumed one per request, in order; each is a `ScriptedResponse`
 *   or a function of the recorded request returning one. When the queue is empty the default applies
 *   (`setDefault`, initially a streamed "ok" turn with usage).
 * - Responses: `stream(chunks, {tokensPerSecond | chunkDelayMs, done, cutAfter, stallAfter})` — pace, omit
 *   `[DONE]`, destroy the socket after N chunks (a stream cut mid-way), or stop sending after N chunks (a stall);
 *   `httpError(status, body)`; `hang()` (never sends headers); `rawSse(text)` (arbitrary event-stream text).
 * - `requests` records every request (method, path, headers, parsed JSON body) before it is answered; `reset()`
 *   clears it and the queue.
 * - `apiKey` option: requests without `Authorization: Bearer <apiKey>` get a 401 `invalid_api_key` (queue untouched).
 * - `models` option: `GET …/models` lists these ids (after the key check), and a chat request for any other model
 *   gets OpenAI's 404 `model_not_found`. Without it there is no /models route and every model id is accepted.
 * - `stop()` destroys open connections (stalled or hanging responses included) and closes the listener.
 * Chunk builders (`turnChunks`, `textChunks`, `toolCallChunks`, `usageChunk`…) are re-exported from `openai-chunks`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunkTokens, DEFAULT_USAGE, finishChunk, textChunks, turnChunks, usageChunk, type ChatChunk, type TurnSpec } from './openai-chunks';

export * from './openai-chunks';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined when the body was not JSON). */
  body: any;
}

export interface StreamOptions {
  /** Pace: delay each chunk by its estimated tokens / rate. */
  tokensPerSecond?: number;
  /** Fixed delay before each chunk (wins over tokensPerSecond). */
  chunkDelayMs?: number;
  /** Send the final `data: [DONE]` (default true). */
  done?: boolean;
  /** Destroy the socket after this many chunks. */
  cutAfter?: number;
  /** Send this many chunks, then nothing more while keeping the connection open. */
  stallAfter?: number;
  /** Send every chunk and the end in one write: what a client reads at once when it was busy as they came. */
  together?: boolean;
}

export type ScriptedResponse =
  | ({ kind: 'stream'; chunks: unknown[] } & StreamOptions)
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'raw'; text: string };

export type Script = ScriptedResponse | ((req: RecordedRequest) => ScriptedResponse);

export const stream = (chunks: unknown[], opts: StreamOptions = {}): ScriptedResponse => ({ kind: 'stream', chunks, ...opts });
/** A whole turn built with `turnChunks`. */
export const turn = (spec: TurnSpec, opts: StreamOptions = {}): ScriptedResponse => stream(turnChunks(spec), opts);
/** A text answer streamed in pieces of `size` characters, `delayMs` apart (so a chat sees it grow). */
export const slowTurn = (text: string, delayMs: number, size = 8): ScriptedResponse =>
  stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk(DEFAULT_USAGE)], { chunkDelayMs: delayMs });
export const httpError = (status: number, body?: unknown, headers?: Record<string, string>): ScriptedResponse => ({ kind: 'error', status, body, headers });
export const hang = (): ScriptedResponse => ({ kind: 'hang' });
export const rawSse = (text: string): ScriptedResponse => ({ kind: 'raw', text });

/** An OpenAI-style error body. */
export function errorBody(message: string, code?: string, type = 'invalid_request_error'): unknown {
  return { error: { message, type, code: code ?? null, param: null } };
}

export interface FakeOpenAIServerOptions {
  /** Require this bearer key. */
  apiKey?: string;
  defaultResponse?: Script;
  /**
   * Answers requests that carry no `tools` (one-shot calls: titles, image descriptions) without touching the
   * scripted queue, so a host's background title call cannot consume a turn meant for a session.
   */
  untooled?: Script;
  /** The model ids this server serves (see the header). */
  models?: string[];
}

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Script[] = [];
  private defaultScript: Script;
  private server: http.Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: FakeOpenAIServerOptions = {}) {
    this.defaultScript = opts.defaultResponse ?? turn({ text: 'ok' });
  }

  async start(): Promise<{ baseUrl: string }> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return { baseUrl: this.baseUrl };
  }

  get baseUrl(): string {
    if (!this.server) throw new Error('FakeOpenAIServer not started');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  enqueue(...scripts: Script[]): this {
    this.queue.push(...scripts);
    return this;
  }

  setDefault(script: Script): this {
    this.defaultScript = script;
    return this;
  }

  /** Forget recorded requests and unconsumed scripts (between tests sharing one server). */
  reset(): this {
    this.requests.length = 0;
    this.queue.length = 0;
    return this;
  }

  /** Scripted responses not consumed yet. */
  get pending(): number {
    return this.queue.length;
  }

  private sleep(ms: number, res: http.ServerResponse): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(!res.destroyed);
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.timers.delete(t); resolve(!res.destroyed); }, ms);
      this.timers.add(t);
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try { body = raw ? JSON.parse(raw) : undefined; } catch { body = undefined; }
    const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    this.requests.push(rec);

    const models = this.opts.models;
    if (models !== undefined && req.method === 'GET' && rec.path.split('?')[0].endsWith('/models')) {
      if (this.opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.opts.apiKey}`) {
        return this.sendJson(res, 401, errorBody('Incorrect API key provided', 'invalid_api_key'));
      }
      return this.sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || !rec.path.split('?')[0].endsWith('/chat/completions')) {
      return this.sendJson(res, 404, errorBody(`no route for ${req.method} ${rec.path}`, 'not_found'));
    }
    if (this.opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.opts.apiKey}`) {
      return this.sendJson(res, 401, errorBody('Incorrect API key provided', 'invalid_api_key'));
    }
    const model = (body as { model?: unknown } | undefined)?.model;
    if (models !== undefined && !models.includes(String(model))) {
      return this.sendJson(res, 404, errorBody(`The model \`${String(model)}\` does not exist or you do not have access to it.`, 'model_not_found'));
    }
    if ((body as { stream?: unknown } | undefined)?.stream !== true) {
      return this.sendJson(res, 400, errorBody('this fake server answers stream: true requests only', 'unsupported'));
    }
    const untooled = this.opts.untooled !== undefined && !(body as { tools?: unknown[] } | undefined)?.tools?.length;
    const script = untooled ? this.opts.untooled! : this.queue.shift() ?? this.defaultScript;
    const r = typeof script === 'function' ? script(rec) : script;
    switch (r.kind) {
      case 'error': return this.sendJson(res, r.status, r.body ?? errorBody(`error ${r.status}`), r.headers);
      case 'hang': return;
      case 'raw':
        this.sseHead(res);
        res.end(r.text);
        return;
      case 'stream': return this.sendStream(res, r);
    }
  }

  private sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private sseHead(res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
  }

  /** Resolves once the data is flushed (so a following cut never swallows it); false if the client went away. */
  private write(res: http.ServerResponse, data: string): Promise<boolean> {
    if (res.destroyed || res.writableEnded) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onClose = () => resolve(false);
      res.once('close', onClose);
      res.write(data, (err) => {
        res.off('close', onClose);
        resolve(!err);
      });
    });
  }

  private async sendStream(res: http.ServerResponse, r: Extract<ScriptedResponse, { kind: 'stream' }>): Promise<void> {
    this.sseHead(res);
    if (r.together) {
      res.end(`${r.chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}${r.done !== false ? 'data: [DONE]\n\n' : ''}`);
      return;
    }
    let sent = 0;
    for (const c of r.chunks) {
      if (r.cutAfter !== undefined && sent >= r.cutAfter) { res.socket?.destroy(); return; }
      if (r.stallAfter !== undefined && sent >= r.stallAfter) return;
      const delay = r.chunkDelayMs ?? (r.tokensPerSecond ? (chunkTokens(c as ChatChunk) * 1000) / r.tokensPerSecond : 0);
      if (!(await this.sleep(delay, res))) return;
      if (!(await this.write(res, `data: ${JSON.stringify(c)}\n\n`))) return;
      sent++;
    }
    if (r.cutAfter !== undefined && sent >= r.cutAfter) { res.socket?.destroy(); return; }
    if (r.stallAfter !== undefined) return;
    if (r.done !== false) res.write('data: [DONE]\n\n');
    res.end();
  }
}
