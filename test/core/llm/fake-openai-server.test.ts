/**
 * The fake OpenAI-compatible server itself (reused by later suites): exact SSE framing, the default answer,
 * function scripts, pacing, the key check, unsupported requests, and stop() ending stalled connections.
 */
import { FakeOpenAIServer, hang, stream, textChunks, turn, turnChunks } from '../../fakes/openai-server';

const server = new FakeOpenAIServer({ apiKey: 'k' });
beforeAll(async () => { await server.start(); });
afterAll(async () => { await server.stop(); });
beforeEach(() => { server.reset(); });

const post = (body: unknown, key = 'k', path = '/chat/completions') =>
  fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('SSE framing: one `data: {json}` event per chunk, then `data: [DONE]`', async () => {
  const chunks = turnChunks({ text: 'hey', usage: null });
  server.enqueue(stream(chunks));
  const res = await post({ stream: true, model: 'm', messages: [] });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  expect(await res.text()).toBe(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n');
});

test('the default answer applies when the queue is empty; requests are recorded with their bodies', async () => {
  const text = await (await post({ stream: true, model: 'm', messages: [{ role: 'user', content: 'q' }] })).text();
  expect(text).toContain('"content":"ok"');
  expect(server.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/v1/chat/completions', body: { stream: true, model: 'm', messages: [{ role: 'user', content: 'q' }] } })]);
  server.setDefault(turn({ text: 'changed' }));
  expect(await (await post({ stream: true })).text()).toContain('changed');
});

test('function scripts see the recorded request', async () => {
  server.enqueue((req) => turn({ text: `echo ${req.body.messages[0].content}`, size: 100 }));
  expect(await (await post({ stream: true, messages: [{ role: 'user', content: 'ping' }] })).text()).toContain('echo ping');
  expect(server.pending).toBe(0);
});

test('paced streams deliver every chunk in order', async () => {
  const chunks = textChunks('paced reply text', { size: 4 });
  server.enqueue(stream(chunks, { tokensPerSecond: 500 }));
  const body = await (await post({ stream: true })).text();
  expect(body).toBe(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n');
});

test('a wrong key gets 401 without consuming the queue; other routes 404; non-streaming 400', async () => {
  server.enqueue(turn({ text: 'kept' }));
  const denied = await post({ stream: true }, 'bad');
  expect(denied.status).toBe(401);
  expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  expect(server.pending).toBe(1);
  expect((await post({ stream: true }, 'k', '/embeddings')).status).toBe(404);
  expect((await post({ stream: false })).status).toBe(400);
});

test('stop() ends hanging and stalled connections', async () => {
  const other = new FakeOpenAIServer();
  await other.start();
  other.enqueue(hang(), stream(turnChunks({ text: 'abc' }), { stallAfter: 1 }));
  const hung = fetch(`${other.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ stream: true }) }).then(() => 'settled', () => 'failed');
  const stalled = await fetch(`${other.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ stream: true }) });
  const rest = stalled.text().then(() => 'settled', () => 'failed');
  await new Promise((r) => setTimeout(r, 20));
  await other.stop();
  expect(await hung).toBe('failed');
  expect(await rest).toBe('failed');
});

test('with `models`, GET /models lists them behind the key check and other model ids get 404 model_not_found', async () => {
  const served = new FakeOpenAIServer({ apiKey: 'k', models: ['m1', 'm2'] });
  await served.start();
  try {
    const list = await fetch(`${served.baseUrl}/models`, { headers: { authorization: 'Bearer k' } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect((await fetch(`${served.baseUrl}/models`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const chat = (model: string) =>
      fetch(`${served.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, model, messages: [] }) });
    const missing = await chat('nope');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    expect((await chat('m2')).status).toBe(200);
  } finally {
    await served.stop();
  }
  // without `models` there is no /models route
  expect((await fetch(`${server.baseUrl}/models`, { headers: { authorization: 'Bearer k' } })).status).toBe(404);
});
