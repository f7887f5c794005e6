/**
 * Live smoke test against a real OpenAI-compatible endpoint; runs only when OPENAI_API_KEY is set (else skipped,
 * never failing CI). Endpoint and model: OPENAI_BASE_URL (optional) and OPENAI_SMOKE_MODEL (default gpt-4o-mini).
 */
import * as b from '../../../src/core/omnimessage/builders';
import { GenerativeModel } from '../../../src/core/llm/generative-model';
import { collect, texts, usageOf } from './collect';

const key = process.env.OPENAI_API_KEY;
const live = key ? describe : describe.skip;

live('live OpenAI-compatible endpoint', () => {
  test('a short completion streams text and usage', async () => {
    const m = new GenerativeModel({
      modelId: process.env.OPENAI_SMOKE_MODEL ?? 'gpt-4o-mini',
      apiKey: key,
      baseUrl: process.env.OPENAI_BASE_URL || undefined,
      tools: [],
      maxTokens: 50,
      requestTimeoutMs: 30000,
    });
    const { msgs, outcome } = await collect(m.streamGenerate({ newMessages: [b.userText('Reply with the single word: pong')] }));
    expect(outcome).toEqual({ status: 'completed' });
    expect(texts(msgs).map((t) => t.payload.text).join('').toLowerCase()).toContain('pong');
    expect(usageOf(msgs)!.payload.request.total).toBeGreaterThan(0);
  }, 60000);
});
