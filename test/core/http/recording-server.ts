/**
 * A real HTTP server on 127.0.0.1 for the fetch tests (plainFetch, modelFetch): it records each request
 * (method, URL, headers, body as text) and answers with the route of its path, 404 without one. `use()`
 * wires it into a test file: started before all, stopped after all, routes and records cleared before each.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }
export type Route = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void;

export class RecordingServer {
  readonly routes = new Map<string, Route>();
  readonly seen: Seen[] = [];
  /** `http://127.0.0.1:<port>` once started. */
  base = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.seen.push(s);
      const route = this.routes.get((req.url ?? '').split('?')[0]!);
      if (route) route(req, res, s);
      else res.writeHead(404).end('no route');
    });
  });

  static use(): RecordingServer {
    const s = new RecordingServer();
    beforeAll(() => s.start());
    afterAll(() => s.stop());
    beforeEach(() => {
      s.routes.clear();
      s.seen.length = 0;
    });
    return s;
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
