/**
 * GenerativeModel failure outcomes against the fake server: auth, transport (429/5xx/refused), malformed (cut,
 * truncated, parse error, invalid tool arguments, empty), idle timeout, user abort, fast-mode rejection, and input
 * problems that never reach the network. Every run still passes the stream discipline (checked in `collect`).
 */
import http from 'node:http';
import net from 'node:net';
import * as b from '../../../src/core/omnimessage/builders';
import { isPayload } from '../../../src/core/omnimessage/guards';
import { GenerativeModel } from '../../../src/core/llm/generative-model';
import { errorBody, finishChunk, hang, httpError, rawSse, stream, textChunks, toolCallChunks, turn, turnChunks } from '../../fakes/openai-server';
import { collect, shape, texts, toolCalls, usageOf } from './collect';
import { API_KEY, useFakeServer } from './fixture';

const { server, model } = useFakeServer();
const hi = () => [b.userText('hi')];

describe('auth', () => {
  test('a wrong key (401 invalid_api_key) ends auth with the provider message', async () => {
    const { msgs, outcome } = await collect(model({ apiKey: 'sk-wrong' }).streamGenerate({ newMessages: hi() }));
    expect(msgs).toEqual([]);
    expect(outcome.status).toBe('auth');
    expect(outcome.errorMessage).toMatch(/Incorrect API key/);
  });

  test('a bare 403 is not auth', async () => {
    server.enqueue(httpError(403, errorBody('region not allowed')));
    const { outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('failed');
  });

  test('no API key for a public host ends auth without a request', async () => {
    const { outcome } = await collect(model({ apiKey: undefined, baseUrl: 'https://api.openai.com/v1' }).streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'auth', errorMessage: expect.stringMatching(/^no API key for model fake-model/) });
  });

  test('no API key for a host on this machine is asked without an Authorization header', async () => {
    const { outcome } = await collect(model({ apiKey: undefined }).streamGenerate({ newMessages: hi() }));
    // this fake server wants a key, so the keyless request comes back 401: it was sent, and sent bare
    expect(outcome.status).toBe('auth');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });
});

describe('transport ⇒ timeout', () => {
  test.each([429, 500, 503, 408])('HTTP %i', async (status) => {
    server.enqueue(httpError(status, errorBody(`status ${status}`)));
    const { outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'timeout', errorMessage: expect.stringContaining(String(status)) });
  });

  test('connection refused', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const m = new GenerativeModel({ modelId: 'x', apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}/v1`, tools: [] });
    const { outcome } = await collect(m.streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('timeout');
    expect(outcome.errorMessage).toMatch(/ECONNREFUSED/);
  });

  test('400 is a plain failure', async () => {
    server.enqueue(httpError(400, errorBody('bad request: messages malformed')));
    const { outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'failed', errorMessage: expect.stringContaining('messages malformed') });
  });
});

describe('malformed', () => {
  test('a stream cut mid-way closes the open segment malformed', async () => {
    server.enqueue(stream(turnChunks({ text: 'This answer will be cut', size: 4 }), { cutAfter: 3 }));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('malformed');
    expect(outcome.errorMessage).toBeTruthy();
    expect(texts(msgs)).toHaveLength(1);
    expect(texts(msgs)[0].payload).toMatchObject({ text: 'This answer ', stop_reason: 'malformed' });
    expect(usageOf(msgs)).toBeUndefined();
  });

  test('a stream that ends cleanly before finish_reason is truncated', async () => {
    server.enqueue(stream(textChunks('half'), { done: false }));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'malformed', errorMessage: expect.stringMatching(/truncated/) });
    expect(texts(msgs)[0].payload.stop_reason).toBe('malformed');
  });

  test('an empty stream', async () => {
    server.enqueue(stream([]));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(msgs).toEqual([]);
    expect(outcome.status).toBe('malformed');
  });

  test('a finished stream with no content at all', async () => {
    server.enqueue(stream([finishChunk('stop')]));
    const { outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'malformed', errorMessage: expect.stringMatching(/empty/) });
  });

  test('an unparseable event', async () => {
    server.enqueue(rawSse(`data: ${JSON.stringify(textChunks('ok')[0])}\n\ndata: {"choices": [\n\n`));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('malformed');
    expect(texts(msgs)[0].payload.stop_reason).toBe('malformed');
  });

  test('invalid tool-call argument JSON marks that call malformed', async () => {
    server.enqueue(turn({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"file_path": "/a"' }] }));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'malformed', errorMessage: expect.stringMatching(/invalid JSON arguments/) });
    expect(toolCalls(msgs).map((m) => [m.payload.tool_call_id, m.payload.stop_reason])).toEqual([['c1', 'malformed']]);
    expect(usageOf(msgs)).toBeUndefined();
  });

  test('after a malformed call the remaining calls are closed malformed too (never executed)', async () => {
    server.enqueue(turn({ toolCalls: [{ id: 'c1', name: 'a', arguments: 'not json' }, { id: 'c2', name: 'b', arguments: '{}' }] }));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('malformed');
    expect(toolCalls(msgs).map((m) => m.payload.stop_reason)).toEqual(['malformed', 'malformed']);
  });

  test('an SSE error event is classified like an HTTP error (rate limit ⇒ timeout)', async () => {
    server.enqueue(rawSse(`data: ${JSON.stringify(textChunks('ok')[0])}\n\ndata: ${JSON.stringify(errorBody('Rate limit reached', 'rate_limit_exceeded'))}\n\n`));
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi() }));
    expect(outcome.status).toBe('timeout');
    expect(texts(msgs)[0].payload.stop_reason).toBe('timeout');
  });
});

describe('idle timeout', () => {
  test('a stall mid-stream ends timeout and closes the open segment with timeout', async () => {
    server.enqueue(stream(turnChunks({ reasoning: 'thinking hard', text: 'slow answer', size: 4 }), { stallAfter: 5 }));
    const { msgs, outcome } = await collect(model({ requestTimeoutMs: 200 }).streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'timeout', errorMessage: expect.stringMatching(/200 ms/) });
    expect(msgs.filter((m) => isPayload(m, 'thinking'))[0].payload).toMatchObject({ stop_reason: 'completed' });
    expect(texts(msgs)[0].payload).toMatchObject({ text: 'slow', stop_reason: 'timeout' });
  });

  test('no response headers at all ends timeout', async () => {
    server.enqueue(hang());
    const { msgs, outcome } = await collect(model({ requestTimeoutMs: 200 }).streamGenerate({ newMessages: hi() }));
    expect(msgs).toEqual([]);
    expect(outcome.status).toBe('timeout');
  });

  test('time spent by the consumer does not count: slow consumption of a fast stream completes', async () => {
    server.enqueue(turn({ text: 'abcdefgh', size: 2 }));
    const gen = model({ requestTimeoutMs: 200 }).streamGenerate({ newMessages: hi() });
    let r = await gen.next();
    await new Promise((res) => setTimeout(res, 350)); // longer than the idle timeout, spent outside the upstream wait
    while (!r.done) r = await gen.next();
    expect(r.value.status).toBe('completed');
  });
});

describe('abort', () => {
  test('an abort mid tool call closes it aborted; the request is torn down', async () => {
    const chunks = turnChunks({ text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"file_path":"/etc/hosts"}' }], size: 5 });
    server.enqueue(stream(chunks, { stallAfter: chunks.length - 3 }));
    const ac = new AbortController();
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi(), signal: ac.signal }), (m) => {
      if (isPayload(m, 'partial_tool_call') && m.payload.event_type === 'delta') ac.abort();
    });
    expect(outcome.status).toBe('aborted');
    expect(texts(msgs)[0].payload.stop_reason).toBe('completed');
    const tc = toolCalls(msgs);
    expect(tc).toHaveLength(1);
    expect(tc[0].payload.stop_reason).toBe('aborted');
    const stop = msgs.find((m) => isPayload(m, 'partial_tool_call') && m.payload.event_type === 'stop');
    expect(stop!.payload).toMatchObject({ stop_reason: 'aborted' });
    expect(usageOf(msgs)).toBeUndefined();
  });

  test('an abort closes a buffered parallel call as well as the live one', async () => {
    const chunks = toolCallChunks([{ id: 'c1', name: 'a', arguments: '{"x":"1111111111"}' }, { id: 'c2', name: 'b', arguments: '{"y":"2222222222"}' }], { interleave: true, size: 4 });
    server.enqueue(stream([...chunks, finishChunk('tool_calls')], { stallAfter: 4 }));
    const ac = new AbortController();
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi(), signal: ac.signal }), (m) => {
      if (isPayload(m, 'partial_tool_call') && m.payload.event_type === 'delta') ac.abort();
    });
    expect(outcome.status).toBe('aborted');
    expect(toolCalls(msgs).map((m) => [m.payload.tool_call_id, m.payload.stop_reason])).toEqual([['c1', 'aborted'], ['c2', 'aborted']]);
  });

  test('a consumer that leaves a stream half-read closes its connection; one read to the end keeps it', async () => {
    const closed: string[] = [];
    const peers: number[] = [];
    const srv = http.createServer((req, res) => {
      req.resume();
      peers.push(req.socket.remotePort!);
      const name = `request ${peers.length}`;
      req.socket.once('close', () => closed.push(name));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunks = turnChunks({ text: 'abcdefgh', size: 2 });
      // The first answer stalls after two chunks; the later ones are whole.
      for (const c of peers.length === 1 ? chunks.slice(0, 2) : chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      if (peers.length > 1) res.end('data: [DONE]\n\n');
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    try {
      const m = new GenerativeModel({ modelId: 'x', apiKey: API_KEY, baseUrl: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/v1`, tools: [] });
      const gen = m.streamGenerate({ newMessages: hi() });
      for (let r = await gen.next(); !r.done && !isPayload(r.value, 'partial_text'); r = await gen.next());
      await gen.return({ status: 'aborted' });
      for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(closed).toEqual(['request 1']);
      expect((await collect(m.streamGenerate({ newMessages: hi() }))).outcome.status).toBe('completed');
      expect((await collect(m.streamGenerate({ newMessages: hi() }))).outcome.status).toBe('completed');
      expect(peers[2]).toBe(peers[1]);
      expect(closed).toEqual(['request 1']);
    } finally {
      srv.closeAllConnections();
      await new Promise((resolve) => srv.close(resolve));
    }
  });

  test('already aborted: no request, no messages', async () => {
    const ac = new AbortController();
    ac.abort();
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages: hi(), signal: ac.signal }));
    expect(msgs).toEqual([]);
    expect(outcome.status).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  test('an abort while waiting for headers ends aborted', async () => {
    server.enqueue(hang());
    const ac = new AbortController();
    const gen = model().streamGenerate({ newMessages: hi(), signal: ac.signal });
    const pending = collect(gen);
    setTimeout(() => ac.abort(), 50);
    expect((await pending).outcome.status).toBe('aborted');
  });

  test('an abort after finish_reason still ends completed (and commits the turn)', async () => {
    const chunks = turnChunks({ text: 'done', usage: null });
    server.enqueue(stream(chunks, { stallAfter: chunks.length }), turn({ text: 'next' }));
    const ac = new AbortController();
    const m = model();
    const { msgs, outcome } = await collect(m.streamGenerate({ newMessages: hi(), signal: ac.signal }), (x) => {
      if (isPayload(x, 'text')) ac.abort();
    });
    expect(outcome.status).toBe('completed');
    expect(shape(msgs).slice(-2)).toEqual(['text', 'token_usage']);
    await collect(m.streamGenerate({ newMessages: [b.userText('go on')] }));
    expect(server.requests[1].body.messages.map((x: { content: unknown }) => x.content)).toEqual(['hi', 'done', 'go on']);
  });
});

describe('permanent and input failures', () => {
  test('a 400 naming service_tier with fast mode on is a permanent failure', async () => {
    server.enqueue(httpError(400, { error: { message: 'Unsupported value: service_tier priority', type: 'invalid_request_error', param: 'service_tier', code: 'unsupported_value' } }));
    const { outcome } = await collect(model({ fastMode: true }).streamGenerate({ newMessages: hi() }));
    expect(outcome).toEqual({ status: 'failed', permanent: true, errorMessage: expect.stringMatching(/fast_mode/) });
    expect(server.requests[0].body.service_tier).toBe('priority');
  });

  test.each([
    ['empty input', []],
    ['mixed roles', [b.userText('q'), b.assistantText('a')]],
    ['a partial', [b.partialText('delta', 'x')]],
  ])('%s ⇒ failed, no request', async (_label, newMessages) => {
    const { msgs, outcome } = await collect(model().streamGenerate({ newMessages }));
    expect(msgs).toEqual([]);
    expect(outcome.status).toBe('failed');
    expect(outcome.errorMessage).toBeTruthy();
    expect(server.requests).toHaveLength(0);
  });

  test('an unsupported client_type fails permanently without a request', async () => {
    const { outcome } = await collect(model({ clientType: 'ant-messages' }).streamGenerate({ newMessages: hi() }));
    expect(outcome).toMatchObject({ status: 'failed', permanent: true });
    expect(server.requests).toHaveLength(0);
  });
});
