/**
 * createModelFactory and the bare one-shot call against the fake server: models share the Session allocator and
 * carry Session token totals across rebuilds; the entry's max_tokens wins; bareGenerate sends no tools, no system
 * prompt, 300 tokens, returns '' on any failure, and reports what each call cost.
 */
import * as b from '../../../src/core/omnimessage/builders';
import { createModelFactory } from '../../../src/core/llm/factory';
import { parseModelEntry, type ModelEntry } from '../../../src/core/llm/model-entry';
import { httpError, turn } from '../../fakes/openai-server';
import { collect, toolCalls, usageOf } from './collect';
import { API_KEY, useFakeServer } from './fixture';

const { server } = useFakeServer();
const entry = (extra: Record<string, unknown> = {}): ModelEntry => {
  const r = parseModelEntry({ provider: 'custom', model_id: 'fake-model', base_url: server.baseUrl, ...extra });
  if (!r.ok) throw new Error(r.error);
  return r.entry;
};
/** The fake server is the environment's endpoint, so the environment's key goes to it. */
const envOf = () => ({ OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: server.baseUrl });
const tools = [{ name: 'exec_command', description: 'Run.', parameters: { type: 'object', properties: {} } }];

test('create(): tools, system prompt, Agent max_tokens (entry wins), reasoning_effort per entry flag', async () => {
  const f = createModelFactory({ entry: entry({ max_tokens: 4096, reasoning_effort: true }), env: envOf(), tools, systemPrompt: 'sys', maxTokens: 32000, thinkingLevel: 'medium' });
  await collect(f.create().streamGenerate({ newMessages: [b.userText('hi')] }));
  const g = createModelFactory({ entry: entry(), env: envOf(), tools: () => tools });
  await collect(g.create().streamGenerate({ newMessages: [b.userText('hi')] }));
  expect(server.requests[0].body).toMatchObject({ max_completion_tokens: 4096, reasoning_effort: 'medium', tools: [{ type: 'function', function: tools[0] }] });
  expect(server.requests[0].body.messages[0]).toEqual({ role: 'system', content: 'sys' });
  expect(server.requests[1].body.max_completion_tokens).toBe(32000);
  expect(server.requests[1].body).not.toHaveProperty('reasoning_effort');
});

test('a rebuilt model shares the allocator and continues the Session totals', async () => {
  const call = { id: 'c', name: 'exec_command', arguments: '{}' };
  server.enqueue(turn({ toolCalls: [call], usage: { prompt_tokens: 10, completion_tokens: 2 } }), turn({ toolCalls: [call], usage: { prompt_tokens: 20, completion_tokens: 3 } }));
  const f = createModelFactory({ entry: entry(), env: envOf(), tools, sessionUsage: { cache_read: 0, cache_write: 100, output: 0, total: 100 } });
  const one = await collect(f.create().streamGenerate({ newMessages: [b.userText('a')] }));
  const two = await collect(f.create().streamGenerate({ newMessages: [b.userText('b')] }));
  expect([...toolCalls(one.msgs), ...toolCalls(two.msgs)].map((m) => m.payload.tool_call_id)).toEqual(['c', 'c#2']);
  expect(usageOf(two.msgs)!.payload.session).toEqual({ cache_read: 0, cache_write: 130, output: 5, total: 135 });
  expect(f.sessionUsage()).toEqual({ cache_read: 0, cache_write: 130, output: 5, total: 135 });
});

test('a missing key anywhere ends auth', async () => {
  const f = createModelFactory({ entry: entry(), env: {} });
  expect((await collect(f.create().streamGenerate({ newMessages: [b.userText('a')] }))).outcome.status).toBe('auth');
});

describe('bareGenerate', () => {
  test('returns the reply text; sends no tools, no system prompt, 300 tokens, no fast mode', async () => {
    server.enqueue(turn({ reasoning: 'hmm', text: ' Fixing the build ' }));
    const f = createModelFactory({ entry: entry({ fast_mode: true, max_tokens: 9000 }), env: envOf(), tools, systemPrompt: 'sys' });
    expect(await f.bareGenerate('Title for: fix the build')).toBe('Fixing the build');
    expect(server.requests[0].body).toEqual({
      model: 'fake-model', messages: [{ role: 'user', content: 'Title for: fix the build' }], stream: true,
      stream_options: { include_usage: true }, max_completion_tokens: 300,
    });
  });

  test('sends images after the prompt (vision model)', async () => {
    const img = 'data:image/png;base64,AAAA';
    await createModelFactory({ entry: entry(), env: envOf() }).bareGenerate('Describe.', { images: [img] });
    expect(server.requests[0].body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Describe.' }, { type: 'image_url', image_url: { url: img } }] }]);
  });

  test("'' on failure, on an aborted signal and on its overall deadline", async () => {
    const f = createModelFactory({ entry: entry(), env: envOf() });
    server.enqueue(httpError(500));
    expect(await f.bareGenerate('x')).toBe('');
    const ac = new AbortController();
    ac.abort();
    expect(await f.bareGenerate('x', { signal: ac.signal })).toBe('');
    // every gap is shorter than the limit, the whole reply is longer
    server.enqueue(turn({ text: 'a rather slow reply', size: 2 }, { chunkDelayMs: 60 }));
    expect(await f.bareGenerate('x', { timeoutMs: 250 })).toBe('');
  });

  test('tells onUsage once what the request cost, or how it ended', async () => {
    const f = createModelFactory({ entry: entry(), env: envOf() });
    const heard: unknown[] = [];
    server.enqueue(turn({ text: 'A title', usage: { prompt_tokens: 12, completion_tokens: 3 } }), httpError(500));
    await f.bareGenerate('x', { onUsage: (u) => heard.push(u) });
    await f.bareGenerate('x', { onUsage: (u) => heard.push(u) });
    expect(heard).toEqual([
      { timestamp: expect.any(String), status: 'completed', counts: { cache_read: 0, cache_write: 12, output: 3, total: 15 } },
      { timestamp: expect.any(String), status: 'timeout' },
    ]);
  });
});
