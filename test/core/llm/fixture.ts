/**
 * Test fixture: one fake OpenAI-compatible server per test file, reset between tests, and a `model()` builder
 * pointing a GenerativeModel at it through the real SDK.
 */
import { GenerativeModel, type OpenAIChatModelConfig } from '../../../src/core/llm/generative-model';
import { FakeOpenAIServer } from '../../fakes/openai-server';

export const API_KEY = 'sk-test';

export function useFakeServer(): { server: FakeOpenAIServer; model: (cfg?: Partial<OpenAIChatModelConfig>) => GenerativeModel } {
  const server = new FakeOpenAIServer({ apiKey: API_KEY });
  beforeAll(async () => { await server.start(); });
  afterAll(async () => { await server.stop(); });
  beforeEach(() => { server.reset(); });
  const model = (cfg: Partial<OpenAIChatModelConfig> = {}) =>
    new GenerativeModel({ modelId: 'fake-model', apiKey: API_KEY, baseUrl: server.baseUrl, tools: [], ...cfg });
  return { server, model };
}
