/**
 * An in-process MCP server for tests, built with the SDK's own server classes and served on
 * 127.0.0.1: streamable HTTP (one server per session) at `/mcp` and legacy SSE at `/sse`.
 * Tools: `echo` (read-only), `fail` (an isError result), `image` (text + PNG), `slow` (waits until
 * cancelled), plus any extra names given (to exercise name validation). Records request headers.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export interface FakeMcpServer {
  url: string;
  sseUrl: string;
  headersSeen: http.IncomingHttpHeaders[];
  slowCancelled: () => number;
  close(): Promise<void>;
}

function buildServer(extraToolNames: string[], onSlowCancel: () => void): McpServer {
  const server = new McpServer({ name: 'fake', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echo a message', inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } },
    async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }),
  );
  server.registerTool('fail', { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'something went wrong' }],
    isError: true,
  }));
  server.registerTool('image', { description: 'Returns an image', annotations: { readOnlyHint: true } }, async () => ({
    content: [
      { type: 'text', text: 'a pixel' },
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
    ],
  }));
  server.registerTool('slow', { description: 'Waits until cancelled' }, async (extra) => {
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
    onSlowCancel();
    return { content: [{ type: 'text' as const, text: 'cancelled' }] };
  });
  // The SDK warns on console about names outside its rules; these are registered on purpose.
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    for (const name of extraToolNames) {
      server.registerTool(name, { description: `extra ${name}` }, async () => ({ content: [{ type: 'text', text: name }] }));
    }
  } finally {
    console.warn = warn;
  }
  return server;
}

export async function startFakeMcpServer(extraToolNames: string[] = []): Promise<FakeMcpServer> {
  const headersSeen: http.IncomingHttpHeaders[] = [];
  const sseTransports = new Map<string, SSEServerTransport>();
  const httpTransports = new Map<string, StreamableHTTPServerTransport>();
  const open = new Set<McpServer>();
  let cancelled = 0;
  const httpServer = http.createServer((req, res) => {
    headersSeen.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void (async () => {
      if (url.pathname === '/mcp') {
        const sessionId = req.headers['mcp-session-id'];
        const known = typeof sessionId === 'string' ? httpTransports.get(sessionId) : undefined;
        if (known) {
          await known.handleRequest(req, res);
          return;
        }
        if (sessionId !== undefined || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        const server = buildServer(extraToolNames, () => cancelled++);
        open.add(server);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            httpTransports.set(id, transport);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) httpTransports.delete(transport.sessionId);
          open.delete(server);
        };
        await server.connect(transport);
        await transport.handleRequest(req, res);
      } else if (url.pathname === '/sse' && req.method === 'GET') {
        const server = buildServer(extraToolNames, () => cancelled++);
        open.add(server);
        const transport = new SSEServerTransport('/messages', res);
        sseTransports.set(transport.sessionId, transport);
        res.on('close', () => {
          sseTransports.delete(transport.sessionId);
          void server.close();
          open.delete(server);
        });
        await server.connect(transport);
      } else if (url.pathname === '/messages' && req.method === 'POST') {
        const transport = sseTransports.get(url.searchParams.get('sessionId') ?? '');
        if (!transport) {
          res.writeHead(404).end();
          return;
        }
        await transport.handlePostMessage(req, res);
      } else {
        res.writeHead(404).end();
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    headersSeen,
    slowCancelled: () => cancelled,
    async close() {
      await Promise.all([...open].map((s) => s.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** An HTTP server that accepts requests and never answers (for connect timeouts). */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
