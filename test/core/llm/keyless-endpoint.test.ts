/**
 * A keyless OpenAI-compatible server on this machine (Ollama, vLLM without --api-key) is answered like any
 * other: GenerativeModel sends the request without an Authorization header and streams the reply.
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
