/**
 * The benchmarks' streaming model: an OpenAI-compatible `POST /v1/chat/completions` (SSE) on 127.0.0.1
 * that paces tokens on an absolute schedule (token k leaves at start + k/rate, so timer drift never
 * accumulates) and records when each token was written — the "arrival at the gateway" the streaming
 * measurements compare platform calls against. Which stream a request gets is looked up by the
 * `bench:<id>` tag in its last user message; untagged or tool-less requests (titles) are answered at once.
 * Token k is the word ` w<k, 5 digits>`, so a platform call's text tells which tokens it shows.
 * Emits 'request' with the record when a tagged request arrives and 'end' when its stream is complete.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { chunk, finishChunk, usageChunk } from '../../test/fakes/openai-chunks';

export interface StreamPlan {
  tokens: number;
  /** Tokens per second; 0 or Infinity sends everything at once. */
  tokensPerSecond: number;
  /** Keep every token's send time (otherwise only the first and last). */
  recordTokens?: boolean;
}

export interface StreamRecord {
  id: string;
  /** performance.now() when the request was read. */
  requestAt: number;
  firstTokenAt?: number;
  lastTokenAt?: number;
  /** The finish and usage chunks and `[DONE]` are written. */
  endAt?: number;
  tokens: number;
  /** Send time of token k (recordTokens only). */
  tokenAt?: Float64Array;
  aborted: boolean;
}

export const tokenWord = (k: number): string => ` w${String(k).padStart(5, '0')}`;
export const TOKEN_RE = /w(\d{5})/g;
const TAG_RE = /bench:([A-Za-z0-9_-]+)/g;

export class BenchModelServer extends EventEmitter {
  readonly records = new Map<string, StreamRecord>();
  private server?: http.Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Requests answered, title calls included. */
  requestCount = 0;

  constructor(private readonly planFor: (id: string) => StreamPlan | undefined) {
    super();
    this.setMaxListeners(0);
  }

  async start(): Promise<string> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A real endpoint takes a thousand connections at once; Node's default queue of 511 dropped SYNs in the
      // 1,000-chat burst, and the kernel's 1 s and 3 s retries then showed up as the gateway's latency.
      server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => resolve());
    });
    this.server = server;
    return this.baseUrl;
  }

  get baseUrl(): string {
    if (!this.server) throw new Error('BenchModelServer not started');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const requestAt = performance.now();
    this.requestCount++;
    const raw = Buffer.concat(parts).toString('utf8');
    if (req.method !== 'POST' || !(req.url ?? '').split('?')[0].endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let body: { tools?: unknown[]; messages?: { role?: string; content?: unknown }[] } = {};
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      // answered like an untagged request
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
    const tags = [...JSON.stringify(lastUser?.content ?? '').matchAll(TAG_RE)];
    const id = tags.at(-1)?.[1];
    const plan = body.tools?.length && id ? this.planFor(id) : undefined;
    if (!plan || !id) {
      res.end(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Bench reply' }))}\n\n${this.tail(2)}`);
      return;
    }
    const rec: StreamRecord = { id, requestAt, tokens: plan.tokens, aborted: false, ...(plan.recordTokens ? { tokenAt: new Float64Array(plan.tokens) } : {}) };
    this.records.set(id, rec);
    this.emit('request', rec);
    this.paced(res, rec, plan);
  }

  private tail(tokens: number): string {
    return `data: ${JSON.stringify(finishChunk('stop'))}\n\ndata: ${JSON.stringify(usageChunk({ prompt_tokens: 50, completion_tokens: tokens }))}\n\ndata: [DONE]\n\n`;
  }

  private paced(res: http.ServerResponse, rec: StreamRecord, plan: StreamPlan): void {
    const n = plan.tokens;
    const interval = plan.tokensPerSecond > 0 && Number.isFinite(plan.tokensPerSecond) ? 1000 / plan.tokensPerSecond : 0;
    const start = performance.now();
    let k = 0;
    let timer: NodeJS.Timeout | undefined;
    res.once('close', () => {
      if (timer) {
        clearTimeout(timer);
        this.timers.delete(timer);
      }
      if (rec.endAt === undefined) rec.aborted = true;
    });
    const tick = () => {
      if (timer) this.timers.delete(timer);
      timer = undefined;
      if (res.destroyed) return;
      const now = performance.now();
      let out = '';
      while (k < n && start + k * interval <= now + 0.5) {
        out += `data: ${JSON.stringify(chunk(k === 0 ? { role: 'assistant', content: tokenWord(k) } : { content: tokenWord(k) }))}\n\n`;
        if (rec.tokenAt) rec.tokenAt[k] = now;
        if (k === 0) rec.firstTokenAt = now;
        k++;
      }
      if (out) {
        rec.lastTokenAt = now;
        res.write(out);
      }
      if (k < n) {
        timer = setTimeout(tick, Math.max(0, start + k * interval - performance.now()));
        this.timers.add(timer);
        return;
      }
      res.end(this.tail(n));
      rec.endAt = performance.now();
      this.emit('end', rec);
    };
    tick();
  }
}
