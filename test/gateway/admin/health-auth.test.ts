/**
 * The admin app over real HTTP: open health endpoints, /readyz following adapter states, /metrics in
 * Prometheus text behind the token, bearer auth (none / wrong / right / revoked), the token never in any
 * log line, and the error JSON shape for unknown routes, bad JSON and oversized bodies.
 */
import { hashAdminToken } from '../../../src/gateway/store';
import { startHarness, type Harness } from './helpers';

let h: Harness;
afterEach(() => h?.close());

describe('health', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it('answers /healthz without a token', async () => {
    const r = await h.call('/healthz', { auth: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });

  it('is ready when every configured adapter is connected, and lists them', async () => {
    h.runtime.healthState = {
      accepting: true,
      adapters: [
        { name: 'telegram', state: 'connected', last_inbound_at: 1_800_000_000_000 },
        { name: 'slack', state: 'disabled', detail: 'no SLACK_BOT_TOKEN' },
      ],
    };
    const r = await h.call('/readyz', { auth: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ready: true, accepting: true, adapters: h.runtime.healthState.adapters });
  });

  it('answers 503 while an adapter is connecting or failed, or the runtime is not accepting', async () => {
    h.runtime.healthState = { accepting: true, adapters: [{ name: 'telegram', state: 'connected' }, { name: 'discord', state: 'connecting' }] };
    let r = await h.call('/readyz', { auth: false });
    expect(r.status).toBe(503);
    expect(r.body.ready).toBe(false);
    expect(r.body.adapters[1]).toEqual({ name: 'discord', state: 'connecting' });

    h.runtime.healthState = { accepting: true, adapters: [{ name: 'slack', state: 'failed', detail: 'invalid_auth' }] };
    expect((await h.call('/readyz', { auth: false })).status).toBe(503);

    h.runtime.healthState = { accepting: false, adapters: [] };
    r = await h.call('/readyz', { auth: false });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ ready: false, accepting: false, adapters: [] });
  });

  it('serves what the runtime recorded as Prometheus text on /metrics', async () => {
    h.metrics.inbound('telegram', 'message');
    h.metrics.inbound('telegram', 'message');
    h.metrics.platformCall('telegram', 'sendMessage', 'rate_limited', 40);
    h.metrics.taskFinished('slack', 'completed', 2500);
    const r = await h.call('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toContain('penguin_gateway_inbound_events_total{platform="telegram",kind="message"} 2');
    expect(r.text).toContain('penguin_gateway_platform_rate_limited_total{platform="telegram"} 1');
    expect(r.text).toContain('penguin_gateway_task_duration_seconds_sum{platform="slack",status="completed"} 2.5');
  });
});

describe('auth', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it.each([
    ['/metrics', 'GET'],
    ['/api/sessions', 'GET'],
    ['/api/approvals?state=pending', 'GET'],
    ['/api/approvals/abcdefghij', 'POST'],
    ['/api/allowlist', 'GET'],
    ['/api/no-such-route', 'GET'],
  ])('%s (%s) needs the token: none and wrong both give 401 unauthorized', async (path, method) => {
    const none = await h.call(path, { method, auth: false });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await h.call(path, { method, auth: `${h.token}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(none.body);
  });

  it('refuses a malformed Authorization header and a token sent as Basic', async () => {
    for (const value of [h.token, `Basic ${h.token}`, 'Bearer', `Bearer ${h.token} extra`]) {
      const r = await h.call('/api/sessions', { auth: false, headers: { authorization: value } });
      expect(r.status).toBe(401);
    }
  });

  it('accepts the generated token, and stops accepting it once its hash is revoked', async () => {
    expect((await h.call('/api/sessions')).status).toBe(200);
    expect((await h.call('/api/sessions', { auth: false, headers: { authorization: `bearer   ${h.token}` } })).status).toBe(200);
    await h.store.revokeAdminTokenHash(hashAdminToken(h.token));
    expect((await h.call('/api/sessions')).status).toBe(401);
  });

  it('never writes the token to a log line, even for refused and failing requests', async () => {
    await h.call('/api/sessions');
    await h.call('/api/sessions', { auth: `${h.token}x` });
    await h.call(`/api/sessions?limit=${h.token}`);
    await h.call('/api/approvals/abcdefghij', { method: 'POST', json: { decision: h.token } });
    await h.call('/metrics');
    const text = h.logText();
    expect(h.logs.length).toBeGreaterThanOrEqual(5);
    expect(h.logs.some((l) => l.status === 401)).toBe(true);
    expect(text).not.toContain(h.token);
    expect(text.toLowerCase()).not.toContain('bearer');
  });
});

describe('a token from PENGUIN_ADMIN_TOKEN', () => {
  const TOKEN = 'op-chosen-token-0123456789';
  beforeEach(async () => {
    h = await startHarness({ env: { PENGUIN_ADMIN_TOKEN: TOKEN } });
  });

  it('is accepted, and nothing is generated or printed', async () => {
    expect(h.printed).toBe('');
    expect(await h.store.listAdminTokens()).toEqual([]);
    expect((await h.call('/api/sessions', { auth: TOKEN })).status).toBe(200);
    expect((await h.call('/api/sessions', { auth: 'op-chosen-token-012345678' })).status).toBe(401);
  });
});

describe('error shape', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it('answers unknown routes with 404 JSON, inside and outside /api', async () => {
    for (const path of ['/api/nope', '/nope', '/api/sessions/x/y/z']) {
      const r = await h.call(path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining(path) } });
    }
  });

  it('answers a body that is not JSON with 400 bad_request', async () => {
    const r = await h.call('/api/allowlist', { method: 'POST', body: '{"user": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: 'bad_request', message: 'body: expected valid JSON' } });
  });

  it('answers an oversized body with 413 payload_too_large', async () => {
    const r = await h.call('/api/allowlist', { method: 'POST', json: { user: 'x'.repeat(70_000) } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });

  it('answers a missing body (no JSON content type) with a message naming the body', async () => {
    const r = await h.call('/api/allowlist', { method: 'POST', body: 'user=telegram:42', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining('body') });
  });
});
