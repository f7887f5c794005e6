/**
 * The request GenerativeModel sends, as recorded by the fake server: streaming options, system prompt, tools
 * (omitted when empty, never tool_choice), the output cap, reasoning_effort only for entries that support it,
 * and the priority tier for fast mode; the body as bytes is JSON.stringify of the request, the system
 * prompt's JSON taken from the caller when it has it encoded.
 */
import * as b from '../../../src/core/omnimessage/builders';
import { estimateTextTokens } from '../../../src/core/omnimessage/tokens';
import { turn } from '../../fakes/openai-server';
import { collect } from './collect';
import { useFakeServer } from './fixture';

const { server, model } = useFakeServer();
const hi = () => [b.userText('hi')];
const body = (i = 0) => server.requests[i].body as Record<string, unknown>;
const tool = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } };

test('streaming with usage, system prompt first, tools as functions, no tool_choice, no optional knobs by default', async () => {
  await collect(model({ systemPrompt: 'Be brief.', tools: [tool, { name: 'noop', description: 'No parameters.' }] }).streamGenerate({ newMessages: hi() }));
  expect(body()).toEqual({
    model: 'fake-model',
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
    tools: [
      { type: 'function', function: tool },
      { type: 'function', function: { name: 'noop', description: 'No parameters.', parameters: { type: 'object', properties: {} } } },
    ],
  });
  expect(server.requests[0].headers.authorization).toBe('Bearer sk-test');
});

test('no tools ⇒ no tools key; no system prompt ⇒ no system message', async () => {
  await collect(model().streamGenerate({ newMessages: hi() }));
  expect(body()).not.toHaveProperty('tools');
  expect(body()).not.toHaveProperty('tool_choice');
  expect(body().messages).toEqual([{ role: 'user', content: 'hi' }]);
});

describe('output cap', () => {
  test('maxTokens alone is sent unclamped; ≤0 omits it', async () => {
    await collect(model({ maxTokens: 32000 }).streamGenerate({ newMessages: hi() }));
    await collect(model({ maxTokens: -1, contextWindow: 8000 }).streamGenerate({ newMessages: hi() }));
    expect(body(0).max_completion_tokens).toBe(32000);
    expect(body(1)).not.toHaveProperty('max_completion_tokens');
  });

  test('clamped to window − estimated input − 1024, floored at 512, from the last request total', async () => {
    const text = 'x'.repeat(4000); // ≈1000 tokens
    server.enqueue(turn({ text: 'ok', usage: { prompt_tokens: 5000, completion_tokens: 500 } }));
    const m = model({ maxTokens: 32000, contextWindow: 8000 });
    await collect(m.streamGenerate({ newMessages: [b.userText(text)] }));
    // first request: estimate = new messages only (no system prompt, no tools) = 1000
    expect(body(0).max_completion_tokens).toBe(8000 - 1000 - 1024);
    await collect(m.streamGenerate({ newMessages: [b.userText(text)] }));
    // second: last request.total (5500) + 1000 + 1024 leaves 476 ⇒ the 512 floor
    expect(body(1).max_completion_tokens).toBe(512);
  });

  test('the first estimate counts the system prompt and the tools as sent (the JSON of the tool list), or the prompt estimate given', async () => {
    const systemPrompt = `Answer — briefly. ${'y'.repeat(3997)}`;
    const tools = [tool, { name: 'noop', description: 'No parameters — none at all.' }];
    await collect(model({ maxTokens: 32000, contextWindow: 20000, systemPrompt, tools }).streamGenerate({ newMessages: hi() }));
    const sent = body(0) as { tools: unknown[] };
    const prefix = estimateTextTokens(systemPrompt) + estimateTextTokens(JSON.stringify(sent.tools));
    expect(body(0).max_completion_tokens).toBe(20000 - prefix - estimateTextTokens('hi') - 1024);
    // A caller that knows the prompt's estimate (a session's held prompt) passes it instead of a scan.
    await collect(model({ maxTokens: 32000, contextWindow: 20000, systemPrompt, systemPromptTokens: 3000, tools }).streamGenerate({ newMessages: hi() }));
    expect(body(1).max_completion_tokens).toBe(20000 - 3000 - estimateTextTokens(JSON.stringify(sent.tools)) - estimateTextTokens('hi') - 1024);
  });

  test('a small configured cap wins over a large window', async () => {
    await collect(model({ maxTokens: 300, contextWindow: 128000 }).streamGenerate({ newMessages: hi() }));
    expect(body().max_completion_tokens).toBe(300);
  });
});

describe('thinking level', () => {
  test('sent as reasoning_effort only when the entry supports it; a per-request level overrides the default', async () => {
    await collect(model({ thinkingLevel: 'high' }).streamGenerate({ newMessages: hi() }));
    const capable = model({ thinkingLevel: 'high', reasoningEffort: true });
    await collect(capable.streamGenerate({ newMessages: hi() }));
    await collect(capable.streamGenerate({ newMessages: hi(), thinkingLevel: 'low' }));
    await collect(model({ reasoningEffort: true }).streamGenerate({ newMessages: hi() }));
    expect(body(0)).not.toHaveProperty('reasoning_effort');
    expect(body(1).reasoning_effort).toBe('high');
    expect(body(2).reasoning_effort).toBe('low');
    expect(body(3)).not.toHaveProperty('reasoning_effort');
  });
});

test('fast mode asks for the priority tier', async () => {
  await collect(model({ fastMode: true }).streamGenerate({ newMessages: hi() }));
  await collect(model({ fastMode: false }).streamGenerate({ newMessages: hi() }));
  expect(body(0).service_tier).toBe('priority');
  expect(body(1)).not.toHaveProperty('service_tier');
});

describe('the body as sent', () => {
  const prompt = 'Answer — briefly, "quoted"\n😀 …';
  const given = () => [Buffer.from(JSON.stringify(prompt).slice(0, 9), 'utf8'), JSON.stringify(prompt).slice(9)];

  test('is JSON.stringify of the request, with or without the prompt given, tools, history and cap', () => {
    for (const cfg of [{}, { systemPrompt: prompt }, { systemPrompt: prompt, systemPromptJson: given }, { systemPrompt: prompt, systemPromptJson: given, tools: [tool], maxTokens: 100 }]) {
      const m = model(cfg);
      m.setHistory([b.userText('before'), b.assistantText('earlier answer')]);
      for (const req of [m.buildRequest(hi()), m.buildRequest([])]) expect(Buffer.concat(m.encodeRequest(req).chunks).toString('utf8')).toBe(JSON.stringify(req));
    }
  });

  test('carries the prompt JSON the caller hands over, as JSON', async () => {
    // A marker text in place of the prompt's JSON shows it is spliced in, not escaped again.
    await collect(model({ systemPrompt: prompt, systemPromptJson: () => ['"as handed', Buffer.from(' over"')], tools: [tool] }).streamGenerate({ newMessages: hi() }));
    expect(body().messages).toEqual([{ role: 'system', content: 'as handed over' }, { role: 'user', content: 'hi' }]);
    expect(server.requests[0].headers['content-type']).toBe('application/json');
  });
});
