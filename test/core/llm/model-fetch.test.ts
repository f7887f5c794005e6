/**
 * `modelFetch` against a real HTTP server on 127.0.0.1: what it sends, a body that streams as it arrives,
 * compressed bodies, aborts before and during the body, connection failures, redirects, null-body statuses,
 * the Node stream under a Response (nodeBodyOf), a chunked body (through the SDK too), and the model SDK
 * streaming a chat completion through it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import OpenAI from 'openai';
import { ChunkedBody, modelFetch, nodeBodyOf } from '../../../src/core/llm/model-fetch';
import { RecordingServer } from '../http/recording-server';

const srv = RecordingServer.use();
const { routes, seen } = srv;

test('sends the method, headers and body, and answers with status, headers and body', async () => {
  routes.set('/echo', (_req, res, s) => res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-multi': ['a', 'b'] }).end(JSON.stringify({ got: s.body })));
  const res = await modelFetch(`${srv.base}/echo?x=1`, { method: 'POST', headers: new Headers({ 'Content-Type': 'application/json', Authorization: 'Bearer k' }), body: '{"hello":"wörld"}' });
  expect(res.status).toBe(201);
  expect(res.statusText).toBe('Made');
  expect(res.ok).toBe(true);
  expect(res.url).toBe(`${srv.base}/echo?x=1`);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('x-multi')).toBe('a, b');
  expect(await res.json()).toEqual({ got: '{"hello":"wörld"}' });
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/echo?x=1' });
  expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer k', 'content-length': String(Buffer.byteLength('{"hello":"wörld"}')) });
});

test('takes headers as a plain record or pairs, and bytes as a body', async () => {
  routes.set('/echo', (_req, res, s) => res.end(s.body));
  const a = await modelFetch(`${srv.base}/echo`, { method: 'PUT', headers: { 'X-One': '1' }, body: new TextEncoder().encode('bytes') });
  expect(await a.text()).toBe('bytes');
  const b = await modelFetch(new URL(`${srv.base}/echo`), { headers: [['X-Two', '2']] });
  expect(await b.text()).toBe('');
  expect(seen[0]!.headers['x-one']).toBe('1');
  expect(seen[1]!.headers['x-two']).toBe('2');
  expect(seen[1]!.method).toBe('GET');
});

test('the body streams: a chunk is readable before the server has finished', async () => {
  let finish!: () => void;
  routes.set('/sse', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n');
    finish = () => res.end('data: two\n\n');
  });
  const res = await modelFetch(`${srv.base}/sse`, { method: 'POST', body: '{}' });
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(Buffer.from(first.value!).toString()).toBe('data: one\n\n');
  finish();
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
  expect(rest).toBe('data: two\n\n');
});

test('nodeBodyOf gives the Node stream under a Response made here, decoded; none for a Response from elsewhere', async () => {
  routes.set('/z', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.from('data: one\n\n'))));
  const res = await modelFetch(`${srv.base}/z`);
  const stream = nodeBodyOf(res)!;
  let text = '';
  for await (const piece of stream) text += String(piece);
  expect(text).toBe('data: one\n\n');
  expect(nodeBodyOf(new Response('x'))).toBeUndefined();
});

test.each([
  ['gzip', (b: Buffer) => zlib.gzipSync(b)],
  ['deflate', (b: Buffer) => zlib.deflateSync(b)],
  ['br', (b: Buffer) => zlib.brotliCompressSync(b)],
])('a %s body is decoded', async (encoding, compress) => {
  routes.set('/z', (_req, res) => res.writeHead(200, { 'content-encoding': encoding }).end(compress(Buffer.from('{"ok":true}'))));
  const res = await modelFetch(`${srv.base}/z`);
  expect(await res.json()).toEqual({ ok: true });
  expect(seen[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
});

test('an aborted signal rejects before anything is sent', async () => {
  const c = new AbortController();
  c.abort();
  await expect(modelFetch(`${srv.base}/echo`, { signal: c.signal })).rejects.toMatchObject({ name: 'AbortError' });
  expect(seen).toHaveLength(0);
});

test('aborting while waiting for the answer rejects with the abort reason', async () => {
  routes.set('/slow', () => undefined);
  const c = new AbortController();
  const p = modelFetch(`${srv.base}/slow`, { method: 'POST', body: '{}', signal: c.signal });
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
  c.abort();
  await expect(p).rejects.toMatchObject({ name: 'AbortError' });
});

test('aborting during the body errors the body stream with the abort reason', async () => {
  routes.set('/sse', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n');
  });
  const c = new AbortController();
  const res = await modelFetch(`${srv.base}/sse`, { signal: c.signal });
  const reader = res.body!.getReader();
  await reader.read();
  c.abort();
  await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
});

test('a refused connection rejects as fetch does: a TypeError caused by the socket error', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await expect(modelFetch(`http://127.0.0.1:${port}/x`)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
});

test('a server that drops the connection mid-body errors the body stream', async () => {
  routes.set('/drop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const res = await modelFetch(`${srv.base}/drop`);
  await expect(res.text()).rejects.toBeDefined();
});

test('a redirect is followed (by the global fetch)', async () => {
  routes.set('/old', (_req, res) => res.writeHead(307, { location: '/new' }).end());
  routes.set('/new', (_req, res, s) => res.end(`moved: ${s.body}`));
  const res = await modelFetch(`${srv.base}/old`, { method: 'POST', body: 'payload' });
  expect(await res.text()).toBe('moved: payload');
  expect(seen.map((s) => s.url)).toEqual(['/old', '/old', '/new']);
});

test('a redirect is refused under redirect: error, as fetch refuses it, without sending the request again', async () => {
  routes.set('/old', (_req, res) => res.writeHead(308, { location: '/new' }).end());
  const refused = await modelFetch(`${srv.base}/old`, { method: 'POST', body: 'payload', redirect: 'error' }).then(() => undefined, (e: unknown) => e);
  expect(refused).toBeInstanceOf(TypeError);
  expect((refused as Error).message).toBe('fetch failed');
  expect(seen.map((s) => s.url)).toEqual(['/old']);
});

test('a chunked body goes out as its chunks, in order, with their length; a Blob for the global fetch (a redirect)', async () => {
  routes.set('/echo', (_req, res, s) => res.end(s.body));
  routes.set('/moved', (_req, res) => res.writeHead(308, { location: '/echo' }).end());
  const shared = Buffer.from('{"prompt":"wörld — ', 'utf8');
  const chunks = [shared, Buffer.from('rest"}', 'utf8')];
  const body = () => new ChunkedBody(chunks, shared.byteLength + 6);
  const direct = await modelFetch(`${srv.base}/echo`, { method: 'POST', body: body() });
  expect(await direct.text()).toBe('{"prompt":"wörld — rest"}');
  expect(seen[0]!.headers['content-length']).toBe(String(Buffer.byteLength('{"prompt":"wörld — rest"}')));
  const redirected = await modelFetch(`${srv.base}/moved`, { method: 'POST', body: body() });
  expect(await redirected.text()).toBe('{"prompt":"wörld — rest"}');
  // Still shared: nothing was copied into or out of the caller's chunks.
  expect(shared.toString('utf8')).toBe('{"prompt":"wörld — ');
});

test('the model SDK passes a chunked body through untouched', async () => {
  routes.set('/v1/chat/completions', (_req, res, s) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: JSON.parse(s.body) })));
  const client = new OpenAI({ apiKey: 'k', baseURL: `${srv.base}/v1`, fetch: modelFetch, maxRetries: 0 });
  const json = Buffer.from('{"model":"m","messages":[]}', 'utf8');
  const body = new ChunkedBody([json.subarray(0, 10), json.subarray(10)], json.byteLength) as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  const res = await client.chat.completions.create(body, { headers: { 'content-type': 'application/json' } }).asResponse();
  expect(await res.json()).toEqual({ echoed: { model: 'm', messages: [] } });
  expect(seen[0]!.headers['content-length']).toBe(String(json.byteLength));
});

test('a 204 has a null body', async () => {
  routes.set('/none', (_req, res) => res.writeHead(204).end());
  const res = await modelFetch(`${srv.base}/none`, { method: 'DELETE' });
  expect(res.status).toBe(204);
  expect(res.body).toBeNull();
});

test('other bodies and schemes go to the global fetch', async () => {
  routes.set('/echo', (_req, res, s) => res.end(s.body));
  const form = new URLSearchParams({ a: '1' });
  const res = await modelFetch(`${srv.base}/echo`, { method: 'POST', body: form });
  expect(await res.text()).toBe('a=1');
  await expect(modelFetch('data:text/plain,hi')).resolves.toMatchObject({ status: 200 });
});

test('the model SDK streams a chat completion through it and sees API errors', async () => {
  routes.set('/v1/chat/completions', (_req, res, s) => {
    const body = JSON.parse(s.body) as { model: string };
    if (body.model === 'missing') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no such model', code: 'model_not_found' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const t of ['Hel', 'lo']) res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  const client = new OpenAI({ apiKey: 'k', baseURL: `${srv.base}/v1`, maxRetries: 0, fetch: modelFetch });
  const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  expect(text).toBe('Hello');
  expect(seen[0]!.headers.authorization).toBe('Bearer k');
  await expect(client.chat.completions.create({ model: 'missing', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
});
