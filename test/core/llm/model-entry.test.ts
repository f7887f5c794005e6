/** `[[models]]` entries: zod validation with clear errors, defaults, and the OPENAI_* fallback for blank key/url. */
import { parseModelEntry, resolveModelConnection, type ModelEntry } from '../../../src/core/llm/model-entry';

const ok = (raw: unknown): ModelEntry => {
  const r = parseModelEntry(raw);
  if (!r.ok) throw new Error(r.error);
  return r.entry;
};

test('a full entry parses; vision defaults to true; TOML dates become ISO text; digit-string windows become numbers', () => {
  const e = ok({
    provider: 'deepseek', model_id: 'deepseek-v4-flash', context_window: '128000', client_type: 'openai-chat', display_name: 'DeepSeek',
    max_tokens: 32000, fast_mode: false, pricing: { unit: 'usd_per_mtok', cache_read: 0.07, cache_write: 0.27, output: 1.1 },
    api_key: 'sk-x', base_url: 'https://api.deepseek.com', created_at: new Date('2025-01-02T03:04:05Z'),
  });
  expect(e).toMatchObject({ vision: true, context_window: 128000, created_at: '2025-01-02T03:04:05.000Z' });
  expect(ok({ provider: 'p', model_id: 'm', vision: false }).vision).toBe(false);
});

test('errors name the field and the entry', () => {
  const r = parseModelEntry({ provider: '', model_id: 'm', pricing: { unit: 'usd', cache_read: 1, cache_write: 1, output: 1 }, vision: 'yes' }, 'models[3]');
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.error).toMatch(/^models\[3\]: /);
  expect(r.error).toMatch(/provider/);
  expect(r.error).toMatch(/pricing\.unit/);
  expect(r.error).toMatch(/vision/);
});

test('blank key and url fall back to OPENAI_API_KEY / OPENAI_BASE_URL; set values win', () => {
  const env = { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'https://env.example/v1' };
  expect(resolveModelConnection(ok({ provider: 'custom', model_id: 'm', api_key: '  ', base_url: '' }), env)).toEqual({
    provider: 'custom', modelId: 'm', apiKey: 'sk-env', baseUrl: 'https://env.example/v1',
  });
  expect(resolveModelConnection(ok({ provider: 'p', model_id: 'm', api_key: 'sk-own', base_url: 'https://own/v1', client_type: 'openai-chat' }), env)).toEqual({
    provider: 'p', modelId: 'm', apiKey: 'sk-own', baseUrl: 'https://own/v1', clientType: 'openai-chat',
  });
  expect(resolveModelConnection(ok({ provider: 'p', model_id: 'm' }), {})).toEqual({ provider: 'p', modelId: 'm' });
});

test("the environment's key goes only to the environment's endpoint, never to an entry's other base_url", () => {
  const deepseek = ok({ provider: 'deepseek', model_id: 'deepseek-v4-flash', base_url: 'https://api.deepseek.com' });
  expect(resolveModelConnection(deepseek, { OPENAI_API_KEY: 'sk-openai' })).toEqual({ provider: 'deepseek', modelId: 'deepseek-v4-flash', baseUrl: 'https://api.deepseek.com' });
  expect(resolveModelConnection(deepseek, { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: 'https://proxy.example/v1' })).not.toHaveProperty('apiKey');
  expect(resolveModelConnection(deepseek, { OPENAI_API_KEY: 'sk-ds', OPENAI_BASE_URL: 'https://API.deepseek.com/' }).apiKey).toBe('sk-ds');
  const openai = ok({ provider: 'openai', model_id: 'gpt', base_url: 'https://api.openai.com/v1/' });
  expect(resolveModelConnection(openai, { OPENAI_API_KEY: 'sk-openai' }).apiKey).toBe('sk-openai');
});
