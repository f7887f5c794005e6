/**
 * `plainFetch` against a real HTTP server on 127.0.0.1: what it sends (bodies and the content types fetch
 * would give them), the answer's status, headers and body read once (text, JSON, bytes; gzip undone), null
 * bodies, redirects (refused when asked, else followed by the global fetch), a FormData upload through the
 * global fetch, failures and aborts rejecting as fetch's do, and an unread answer still handing its
 * keep-alive connection back. Slack's Web API and Discord's REST are
 * proven over it by their adapters' tests against the fakes.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import * as zlib from 'node:zlib';
import { PlainResponse, plainFetch } from '../../../src/core/http/plain-fetch';
import { RecordingServer } from './recording-server';

const srv = RecordingServer.use();
const { routes, seen } = srv;

test('sends the method, headers and a text body; answers with status, headers and the body as JSON', async () => {
  routes.set('/echo', (_req, res, s) => res.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'], 'X-RateLimit-Remaining': '4' }).end(JSON.stringify({ got: s.body })));
  const res = await plainFetch(`${srv.base}/echo?x=1`, { method: 'post', headers: { 'Content-Type': 'application/json', Authorization: 'Bot k' }, body: '{"hello":"wörld"}' });
  expect(res).toBeInstanceOf(PlainResponse);
  expect(res.status).toBe(201);
  expect(res.statusText).toBe('Made');
  expect(res.ok).toBe(true);
  expect(res.url).toBe(`${srv.base}/echo?x=1`);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
  expect(res.headers.has('X-RATELIMIT-REMAINING')).toBe(true);
  expect(res.headers.get('x-multi')).toBe('a, b');
  expect(res.headers.get('x-missing')).toBeNull();
  expect(Object.fromEntries(res.headers.entries())).toMatchObject({ 'content-type': 'application/json', 'x-multi': 'a, b' });
  expect([...res.headers].map(([k]) => k)).toEqual([...res.headers].map(([k]) => k).sort());
  expect(await res.json()).toEqual({ got: '{"hello":"wörld"}' });
  expect(res.bodyUsed).toBe(true);
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/echo?x=1' });
  expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bot k', accept: '*/*', 'content-length': String(Buffer.byteLength('{"hello":"wörld"}')) });
});

test('gives each body the content type fetch would, unless one is set', async () => {
  routes.set('/in', (_req, res) => res.end('ok'));
  await plainFetch(`${srv.base}/in`, { method: 'POST', body: 'plain' });
  await plainFetch(`${srv.base}/in`, { method: 'POST', body: new URLSearchParams({ token: 'x', text: 'a b&c' }) });
  await plainFetch(`${srv.base}/in`, { method: 'POST', body: Buffer.from([1, 2, 3]) });
  await plainFetch(`${srv.base}/in`, { method: 'POST', body: new Uint8Array([104, 105]).buffer });
  await plainFetch(`${srv.base}/in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
  expect(seen.map((s) => [s.headers['content-type'], s.body])).toEqual([
    ['text/plain;charset=UTF-8', 'plain'],
    ['application/x-www-form-urlencoded;charset=UTF-8', 'token=x&text=a+b%26c'],
    [undefined, '\u0001\u0002\u0003'],
    [undefined, 'hi'],
    ['application/x-www-form-urlencoded', 'a=1'],
  ]);
});

test('reads the body once, as text, bytes or the Node stream; a second read is refused as fetch refuses it', async () => {
  routes.set('/text', (_req, res) => res.end('\ufeffhällo'));
  const res = await plainFetch(`${srv.base}/text`);
  expect(await res.text()).toBe('hällo');
  await expect(res.text()).rejects.toThrow(TypeError);
  const bytes = await (await plainFetch(`${srv.base}/text`)).arrayBuffer();
  expect(Buffer.from(bytes).toString('utf8')).toBe('\ufeffhällo');
  const streamed = (await plainFetch(`${srv.base}/text`)) as PlainResponse;
  const chunks: Buffer[] = [];
  for await (const c of streamed.body!) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString('utf8')).toBe('\ufeffhällo');
});

test('undoes gzip; a status without a body has none; an error status is an answer, not a failure', async () => {
  routes.set('/gz', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('{"ok":true}')));
  routes.set('/none', (_req, res) => res.writeHead(204).end());
  routes.set('/bad', (_req, res) => res.writeHead(429, { 'retry-after': '2' }).end('{"retry_after":2}'));
  expect(await (await plainFetch(`${srv.base}/gz`)).json()).toEqual({ ok: true });
  const none = await plainFetch(`${srv.base}/none`);
  expect(none.body).toBeNull();
  expect(await none.text()).toBe('');
  const bad = await plainFetch(`${srv.base}/bad`);
  expect(bad.ok).toBe(false);
  expect(bad.headers.get('Retry-After')).toBe('2');
  expect(await bad.json()).toEqual({ retry_after: 2 });
});

test('a redirect is refused when asked (as fetch does), else followed by the global fetch', async () => {
  routes.set('/moved', (_req, res) => res.writeHead(302, { location: '/target' }).end());
  routes.set('/target', (_req, res) => res.end('arrived'));
  const refused = await plainFetch(`${srv.base}/moved`, { method: 'POST', body: 'x', redirect: 'error' }).then(() => undefined, (e: unknown) => e);
  expect(refused).toBeInstanceOf(TypeError);
  expect((refused as Error).message).toBe('fetch failed');
  const followed = await plainFetch(`${srv.base}/moved`);
  expect(followed).toBeInstanceOf(Response);
  expect(await followed.text()).toBe('arrived');
  expect(followed.url).toBe(`${srv.base}/target`);
});

test('a FormData upload goes through the global fetch, as multipart', async () => {
  routes.set('/upload', (_req, res, s) => res.end(JSON.stringify({ type: s.headers['content-type'], body: s.body })));
  const form = new FormData();
  form.append('payload_json', '{"content":"hi"}');
  form.append('files[0]', new Blob(['file bytes'], { type: 'text/plain' }), 'a.txt');
  const res = await plainFetch(`${srv.base}/upload`, { method: 'POST', body: form });
  expect(res).toBeInstanceOf(Response);
  const got = (await res.json()) as { type: string; body: string };
  expect(got.type).toMatch(/^multipart\/form-data; boundary=/);
  expect(got.body).toContain('filename="a.txt"');
  expect(got.body).toContain('file bytes');
});

test('a refused connection rejects as fetch does: TypeError("fetch failed"), the system error as its cause', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  const err = await plainFetch(`http://127.0.0.1:${port}/x`).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(TypeError);
  expect((err as Error).message).toBe('fetch failed');
  expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
});

test('an abort rejects with the signal\'s reason, before the answer and while its body is read', async () => {
  const before = new AbortController();
  before.abort(new Error('stop now'));
  await expect(plainFetch(`${srv.base}/x`, { signal: before.signal })).rejects.toThrow('stop now');

  routes.set('/slow', (_req, res) => {
    res.writeHead(200);
    res.write('part');
  });
  const during = new AbortController();
  const res = await plainFetch(`${srv.base}/slow`, { signal: during.signal });
  const reading = res.text();
  during.abort(new Error('cut off'));
  await expect(reading).rejects.toThrow('cut off');

  routes.set('/never', () => undefined);
  const timedOut = await plainFetch(`${srv.base}/never`, { signal: AbortSignal.timeout(50) }).then(() => undefined, (e: unknown) => e);
  expect((timedOut as DOMException).name).toBe('TimeoutError');
});

test('an answer nobody reads still frees its keep-alive connection (an SDK that throws on a 429 reads no body)', async () => {
  let connections = 0;
  const own = http.createServer((_req, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"ok":false,"error":"ratelimited"}'));
  own.on('connection', () => connections++);
  await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
  const { port } = own.address() as AddressInfo;
  try {
    const first = await plainFetch(`http://127.0.0.1:${port}/api/chat.postMessage`, { method: 'POST', body: 'x' });
    expect(first.status).toBe(429);
    // Back in the agent's pool once the body has arrived, though nothing read it.
    const pooled = () => (http.globalAgent.freeSockets[`127.0.0.1:${port}:`] ?? []).length > 0;
    for (let i = 0; i < 200 && !pooled(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(pooled()).toBe(true);
    const second = await plainFetch(`http://127.0.0.1:${port}/api/chat.postMessage`, { method: 'POST', body: 'x' });
    expect(await second.json()).toEqual({ ok: false, error: 'ratelimited' });
    expect(connections).toBe(1);
  } finally {
    own.closeAllConnections();
    await new Promise((r) => own.close(r));
  }
});
