/**
 * Every model of one connection (key, base URL, client type) shares one SDK client, so a session costs no
 * client of its own; a different connection gets its own, and a setup failure is reported the same way.
 */
import { sharedClient } from '../../../src/core/llm/openai-client';

describe('sharedClient', () => {
  const target = { modelId: 'm', apiKey: 'sk-1', baseUrl: 'http://127.0.0.1:9/v1' };

  it('hands the same client to every model of a connection', () => {
    const a = sharedClient(target);
    const b = sharedClient({ ...target });
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(b.client).toBe(a.client);
  });

  it('gives another key or base URL a client of its own', () => {
    const a = sharedClient(target);
    const otherKey = sharedClient({ ...target, apiKey: 'sk-2' });
    const otherUrl = sharedClient({ ...target, baseUrl: 'http://127.0.0.1:10/v1' });
    if (!a.ok || !otherKey.ok || !otherUrl.ok) throw new Error('expected clients');
    expect(otherKey.client).not.toBe(a.client);
    expect(otherUrl.client).not.toBe(a.client);
  });

  it('reports a missing key for a public host instead of a client', () => {
    const r = sharedClient({ modelId: 'm', baseUrl: 'https://api.example.com/v1' });
    expect(r.ok).toBe(false);
  });
});
