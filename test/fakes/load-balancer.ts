/**
 * FakeLoadBalancer: an HTTP reverse proxy on 127.0.0.1 in front of several gateway instances, as a
 * deployment would put one in front of webhook / HTTP modes. Each request (body read first) goes to the
 * next backend round-robin, or to the one `prefer()` / `only()` names; a backend that refuses the
 * connection (a killed instance) is skipped for the next one, unless `only()` pinned it (then 502).
 * Method, path, headers (less hop-by-hop ones), body and the response pass through unchanged.
 */
import http from 'node:http';
import { readBody } from './http-body';
import { closeNow, listenOnLoopback } from './loopback-http';

/** One request as the balancer routed it. */
export interface RoutedRequest {
  method: string;
  path: string;
  /** The backend that answered, or undefined when none could be reached. */
  backend: string | undefined;
  /** Backends tried first that refused the connection. */
  refused: string[];
  status: number;
}

/** Headers that describe one connection, not the request, so a proxy does not forward them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-authorization']);
const MAX_BODY = 16 * 1024 * 1024;

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

/** Base URLs compare without a trailing slash, so `http://h:1/` and `http://h:1` are one backend. */
const norm = (url: string) => url.replace(/\/+$/, '');

class ConnectRefused extends Error {}

export class FakeLoadBalancer {
  /** Every request so far, in the order they were answered. */
  readonly routed: RoutedRequest[] = [];
  private list: string[];
  private next = 0;
  private pin: { url: string; strict: boolean } | undefined;
  private server: http.Server | undefined;
  private base: string | undefined;
  /** No pooled connections: a request to a killed backend then fails at connect, where retrying is safe. */
  private readonly agent = new http.Agent({ keepAlive: false });

  constructor(backends: string[] = []) {
    this.list = backends.map(norm);
  }

  /** Listens on an ephemeral loopback port; resolves with the balancer's base URL. */
  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    const port = await listenOnLoopback(this.server);
    this.base = `http://127.0.0.1:${port}`;
    return this.base;
  }

  get url(): string {
    if (!this.base) throw new Error('the load balancer has not been started');
    return this.base;
  }

  async stop(): Promise<void> {
    if (this.server) await closeNow(this.server);
    this.server = undefined;
    this.agent.destroy();
  }

  get backends(): readonly string[] {
    return this.list;
  }

  add(url: string): void {
    if (!this.list.includes(norm(url))) this.list.push(norm(url));
  }

  /** Takes a backend out of the rotation (and clears a pin on it). */
  remove(url: string): void {
    this.list = this.list.filter((b) => b !== norm(url));
    if (this.pin?.url === norm(url)) this.pin = undefined;
  }

  /** Sends every request to `url` first, failing over to the others when it refuses, until `clear()`. */
  prefer(url: string): void {
    this.pinTo(url, false);
  }

  /** Sends every request to `url` alone (502 when it refuses), until `clear()`. */
  only(url: string): void {
    this.pinTo(url, true);
  }

  /** Back to round-robin. */
  clear(): void {
    this.pin = undefined;
  }

  /** Requests each backend answered. */
  counts(): Record<string, number> {
    const out: Record<string, number> = Object.fromEntries(this.list.map((b) => [b, 0]));
    for (const r of this.routed) if (r.backend) out[r.backend] = (out[r.backend] ?? 0) + 1;
    return out;
  }

  private pinTo(url: string, strict: boolean): void {
    if (!this.list.includes(norm(url))) throw new Error(`${url} is not a backend of this load balancer (${this.list.join(', ') || 'none'})`);
    this.pin = { url: norm(url), strict };
  }

  /** The backends to try for one request, in order. */
  private order(): string[] {
    if (this.pin?.strict) return [this.pin.url];
    if (this.pin) return [this.pin.url, ...this.list.filter((b) => b !== this.pin!.url)];
    const n = this.list.length;
    const start = n === 0 ? 0 : this.next++ % n;
    return [...this.list.slice(start), ...this.list.slice(0, start)];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const record = (backend: string | undefined, refused: string[], status: number) => this.routed.push({ method, path, backend, refused, status });
    let body: Buffer;
    try {
      body = await readBody(req, { maxBytes: MAX_BODY });
    } catch (err) {
      res.writeHead(413, { 'content-type': 'text/plain' }).end(`load balancer: ${(err as Error).message}`);
      record(undefined, [], 413);
      return;
    }
    const candidates = this.order();
    const refused: string[] = [];
    for (const backend of candidates) {
      try {
        const status = await this.forward(backend, req, body, res);
        record(backend, refused, status);
        return;
      } catch (err) {
        if (err instanceof ConnectRefused) {
          refused.push(backend);
          continue;
        }
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`load balancer: ${backend} failed: ${(err as Error).message}`);
        else res.destroy();
        record(backend, refused, 502);
        return;
      }
    }
    const status = candidates.length === 0 ? 503 : 502;
    res.writeHead(status, { 'content-type': 'text/plain' }).end(candidates.length === 0 ? 'load balancer: no backends' : `load balancer: every backend refused (${refused.join(', ')})`);
    record(undefined, refused, status);
  }

  /** One attempt; rejects with ConnectRefused when no connection was made, so the caller may try another. */
  private forward(backend: string, req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<number> {
    const target = new URL(backend);
    const headers = endToEnd(req.headers);
    if (body.length > 0 || req.headers['content-length'] !== undefined) headers['content-length'] = body.length;
    return new Promise((resolve, reject) => {
      let connected = false;
      const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: this.agent }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, endToEnd(upRes.headers));
        upRes.pipe(res);
        upRes.on('end', () => resolve(upRes.statusCode ?? 502));
        upRes.on('error', (err) => {
          res.destroy();
          reject(err);
        });
      });
      up.on('socket', (s) => s.once('connect', () => (connected = true)));
      up.on('error', (err) => reject(connected ? err : new ConnectRefused(err.message)));
      // The client gave up: the backend need not finish a reply nobody reads.
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      up.end(body);
    });
  }
}
