/**
 * FakeLoadBalancer against real node:http servers on 127.0.0.1: requests spread round-robin, method /
 * path / headers / body and the response pass through both ways, a closed backend is skipped for the
 * next, `prefer` and `only` pin the choice until `clear`, and answers are counted per backend.
 */
import http from 'node:http';
import { readBody } from './http-body';
import { FakeLoadBalancer } from './load-balancer';
import { closeNow, listenOnLoopback } from './loopback-http';

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Backend {
  name: string;
  url: string;
  seen: Seen[];
  server: http.Server;
}

const servers: http.Server[] = [];
let lb: FakeLoadBalancer;

/** A server that answers with its name and echoes what it got; `/slow` streams its answer in two writes. */
async function backend(name: string): Promise<Backend> {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    const body = (await readBody(req, { maxBytes: 1 << 20 })).toString('utf8');
    seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
    if (req.url === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': name });
      res.write('first ');
      setImmediate(() => res.end('second'));
      return;
    }
    res.writeHead(req.url === '/missing' ? 404 : 201, { 'content-type': 'application/json', 'x-backend': name });
    res.end(JSON.stringify({ name, method: req.method, path: req.url, body }));
  });
  servers.push(server);
  const port = await listenOnLoopback(server);
  return { name, url: `http://127.0.0.1:${port}`, seen, server };
}

const nameOf = async (r: Response) => r.headers.get('x-backend');

beforeEach(async () => {
  lb = new FakeLoadBalancer();
  await lb.start();
});

afterEach(async () => {
  await lb.stop();
  await Promise.all(servers.splice(0).map((s) => (s.listening ? closeNow(s) : undefined)));
});

it('spreads requests round-robin over its backends and counts who answered', async () => {
  const [a, b, c] = await Promise.all([backend('a'), backend('b'), backend('c')]);
  for (const x of [a, b, c]) lb.add(x.url);
  const names: (string | null)[] = [];
  for (let i = 0; i < 6; i++) names.push(await nameOf(await fetch(`${lb.url}/ping`)));
  expect(names).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  expect(lb.counts()).toEqual({ [a.url]: 2, [b.url]: 2, [c.url]: 2 });
});

it('passes method, path with query, headers and body through, and the status, headers and body back', async () => {
  const a = await backend('a');
  lb.add(a.url);
  const res = await fetch(`${lb.url}/telegram/webhook?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 's3cret' },
    body: JSON.stringify({ update_id: 7 }),
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('x-backend')).toBe('a');
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(await res.json()).toEqual({ name: 'a', method: 'POST', path: '/telegram/webhook?x=1', body: '{"update_id":7}' });
  expect(a.seen[0].headers).toMatchObject({ 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 's3cret', 'content-length': '15' });

  const missing = await fetch(`${lb.url}/missing`, { method: 'DELETE' });
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ method: 'DELETE', path: '/missing' });
});

it('passes a response written in pieces through whole', async () => {
  const a = await backend('a');
  lb.add(a.url);
  expect(await (await fetch(`${lb.url}/slow`)).text()).toBe('first second');
});

it('fails over to the next backend when one refuses the connection, and says which refused', async () => {
  const [a, b] = await Promise.all([backend('a'), backend('b')]);
  lb.add(a.url);
  lb.add(b.url);
  await closeNow(a.server);
  const names: (string | null)[] = [];
  for (let i = 0; i < 4; i++) names.push(await nameOf(await fetch(`${lb.url}/after-crash`, { method: 'POST', body: `n${i}` })));
  expect(names).toEqual(['b', 'b', 'b', 'b']);
  // a request that failed over carries its body to the survivor
  expect(b.seen.map((s) => s.body)).toEqual(['n0', 'n1', 'n2', 'n3']);
  expect(lb.routed.filter((r) => r.refused.length > 0).map((r) => r.refused)).toEqual([[a.url], [a.url]]);
  expect(lb.counts()).toEqual({ [a.url]: 0, [b.url]: 4 });
});

it('answers 502 when every backend refuses and 503 when it has none', async () => {
  const a = await backend('a');
  lb.add(a.url);
  await closeNow(a.server);
  const refused = await fetch(`${lb.url}/x`);
  expect(refused.status).toBe(502);
  expect(await refused.text()).toContain('every backend refused');
  lb.remove(a.url);
  expect(lb.backends).toEqual([]);
  expect((await fetch(`${lb.url}/x`)).status).toBe(503);
});

it('prefer() sends everything to one backend, failing over when it refuses; clear() restores round-robin', async () => {
  const [a, b] = await Promise.all([backend('a'), backend('b')]);
  lb.add(a.url);
  lb.add(b.url);
  lb.prefer(b.url);
  const pinned: (string | null)[] = [];
  for (let i = 0; i < 3; i++) pinned.push(await nameOf(await fetch(`${lb.url}/p`)));
  expect(pinned).toEqual(['b', 'b', 'b']);
  await closeNow(b.server);
  expect(await nameOf(await fetch(`${lb.url}/p`))).toBe('a');
  lb.clear();
  lb.remove(b.url);
  expect(await nameOf(await fetch(`${lb.url}/p`))).toBe('a');
});

it('only() sends everything to one backend and answers 502 rather than fail over; remove() drops the pin', async () => {
  const [a, b] = await Promise.all([backend('a'), backend('b')]);
  lb.add(a.url);
  lb.add(b.url);
  lb.only(a.url);
  expect([await nameOf(await fetch(`${lb.url}/o`)), await nameOf(await fetch(`${lb.url}/o`))]).toEqual(['a', 'a']);
  await closeNow(a.server);
  expect((await fetch(`${lb.url}/o`)).status).toBe(502);
  expect(b.seen).toEqual([]);
  lb.remove(a.url);
  expect(await nameOf(await fetch(`${lb.url}/o`))).toBe('b');
  expect(() => lb.only(a.url)).toThrow(/is not a backend/);
});
