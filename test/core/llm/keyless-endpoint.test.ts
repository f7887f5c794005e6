/**
 * What the client sends as credentials: a keyless OpenAI-compatible server on this machine (Ollama, vLLM
 * without --api-key) gets no Authorization header at all; a keyed model gets its own key and nothing the SDK
 * could pick up from the process environment (OPENAI_ADMIN_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID).
 */
import * as b from '../../../src/core/omnimessage/builders';
import { GenerativeModel } from '../../../src/core/llm/generative-model';
import { FakeOpenAIServer, turn } from '../../fakes/openai-server';
import { collect, texts } from './collect';

const server = new FakeOpenAIServer();
beforeAll(async () => { await server.start(); });
afterAll(async () => { await server.stop(); });

test('a keyless model on 127.0.0.1 answers, and no credential is sent', async () => {
  server.enqueue(turn({ text: 'hello from ollama' }));
  const model = new GenerativeModel({ modelId: 'llama3', baseUrl: server.baseUrl, tools: [] });
  const { msgs, outcome } = await collect(model.streamGenerate({ newMessages: [b.userText('hi')] }));
  expect(outcome).toEqual({ status: 'completed' });
  expect(texts(msgs).map((m) => m.payload.text).join('')).toBe('hello from ollama');
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0].headers.authorization).toBeUndefined();
});

test("a model's own key is sent, never an admin key, organization or project from the environment", async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { OPENAI_ADMIN_KEY: 'sk-admin-secret', OPENAI_ORG_ID: 'org-x', OPENAI_PROJECT_ID: 'proj-x' });
  try {
    server.enqueue(turn({ text: 'ok' }));
    const model = new GenerativeModel({ modelId: 'm', apiKey: 'sk-model', baseUrl: server.baseUrl, tools: [] });
    expect((await collect(model.streamGenerate({ newMessages: [b.userText('hi')] }))).outcome).toEqual({ status: 'completed' });
    const sent = server.requests.at(-1)!.headers;
    expect(sent.authorization).toBe('Bearer sk-model');
    expect(JSON.stringify(sent)).not.toMatch(/sk-admin-secret|org-x|proj-x/);
  } finally {
    for (const k of ['OPENAI_ADMIN_KEY', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID']) if (saved[k] === undefined) delete process.env[k];
  }
});
