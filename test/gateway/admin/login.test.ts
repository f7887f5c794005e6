/**
 * The dashboard login over real HTTP: token and password logins set an HttpOnly SameSite=Strict cookie
 * with an expiry, wrong ones are refused alike and throttled; with the cookie every state change needs the
 * login's CSRF token (bearer scripts need none); logout and expiry end the login; `/` answers the login
 * page until login and the app after it, with a strict CSP; a missing build says so.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword, writePasswordHash } from '../../../src/gateway/admin/login';
import { startHarness, type Harness } from './helpers';

let h: Harness;
const made: string[] = [];
afterEach(async () => {
  await h?.close();
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dashboardDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pg-dash-'));
  made.push(dir);
  for (const f of ['app.html', 'login.html', 'app.js', 'login.js', 'style.css']) writeFileSync(join(dir, f), `/* ${f} */`);
  return dir;
}

async function login(body: unknown): Promise<{ status: number; body: any; cookie?: string; setCookie: string | null }> {
  const r = await h.call('/api/auth/login', { method: 'POST', auth: false, json: body });
  const setCookie = r.headers.get('set-cookie');
  const cookie = setCookie ? /^(pg_session=[^;]+)/.exec(setCookie)?.[1] : undefined;
  return { status: r.status, body: r.body, setCookie, ...(cookie ? { cookie } : {}) };
}

describe('POST /api/auth/login', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it('logs in with the admin token: an HttpOnly, SameSite=Strict session cookie with an expiry, and a CSRF token', async () => {
    const r = await login({ token: h.token });
    expect(r.status).toBe(200);
    expect(r.setCookie).toMatch(/^pg_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(r.body).toEqual({ csrf: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: expect.any(Number), via: 'token' });
    const session = await h.call('/api/auth/session', { auth: false, headers: { cookie: r.cookie! } });
    expect(session.body.csrf).toBe(r.body.csrf);
  });

  it('refuses a wrong token with no cookie, and the same message as a wrong password', async () => {
    const bad = await login({ token: `${h.token}x` });
    expect(bad.status).toBe(401);
    expect(bad.setCookie).toBeNull();
    expect(bad.body).toEqual({ error: { code: 'login_failed', message: 'that admin token or password is not right' } });
    const noPassword = await login({ password: 'no password was ever set' });
    expect(noPassword.body).toEqual(bad.body);
  });

  it('answers a malformed body with 400 naming it', async () => {
    for (const body of [{}, { token: h.token, password: 'x' }, { token: 42 }, { user: 'admin' }]) {
      const r = await login(body);
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: 'bad_request', message: expect.stringContaining('body') });
    }
  });

  it('logs in with the password set by admin set-password, and not with another', async () => {
    await writePasswordHash(h.home, await hashPassword('correct horse battery staple'));
    expect((await login({ password: 'correct horse battery staple' })).body.via).toBe('password');
    expect((await login({ password: 'correct horse battery stapl' })).status).toBe(401);
  });
});

describe('a dashboard login', () => {
  let cookie: string;
  let csrf: string;
  beforeEach(async () => {
    h = await startHarness();
    const r = await login({ token: h.token });
    cookie = r.cookie!;
    csrf = r.body.csrf;
  });

  it('reads the API with the cookie alone', async () => {
    const r = await h.call('/api/sessions', { auth: false, headers: { cookie } });
    expect(r.status).toBe(200);
  });

  it('needs the CSRF token for every state change; scripts with the bearer token need none', async () => {
    const add = (headers: Record<string, string>, auth: boolean | string = false) => h.call('/api/allowlist', { method: 'POST', auth, headers, json: { user: 'telegram:42' } });
    const none = await add({ cookie });
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ error: { code: 'csrf_failed', message: expect.stringContaining('x-csrf-token') } });
    expect((await add({ cookie, 'x-csrf-token': `${csrf}x` })).status).toBe(403);
    expect((await add({ 'x-csrf-token': csrf })).status).toBe(401);
    expect(await h.store.listAllowed()).toEqual([]);
    expect((await add({ cookie, 'x-csrf-token': csrf })).status).toBe(201);
    const del = await h.call('/api/allowlist/telegram:42', { method: 'DELETE', auth: false, headers: { cookie } });
    expect(del.status).toBe(403);
    expect((await h.call('/api/allowlist/telegram:42', { method: 'DELETE', auth: true })).status).toBe(200);
  });

  it('a wrong bearer header is refused even beside a good cookie', async () => {
    const r = await h.call('/api/sessions', { auth: 'not-the-token', headers: { cookie } });
    expect(r.status).toBe(401);
  });

  it('ends at logout (which itself needs the CSRF token)', async () => {
    expect((await h.call('/api/auth/logout', { method: 'POST', auth: false, headers: { cookie } })).status).toBe(403);
    const out = await h.call('/api/auth/logout', { method: 'POST', auth: false, headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^pg_session=; .*Max-Age=0/);
    expect((await h.call('/api/sessions', { auth: false, headers: { cookie } })).status).toBe(401);
  });
});

describe('login expiry and throttling', () => {
  let now = 1_800_000_000_000;
  beforeEach(async () => {
    now = 1_800_000_000_000;
    h = await startHarness({ now: () => now });
  });

  it('expires 12 hours after login', async () => {
    const { cookie } = await login({ token: h.token });
    now += 12 * 3600_000 - 1;
    expect((await h.call('/api/sessions', { auth: false, headers: { cookie: cookie! } })).status).toBe(200);
    now += 1;
    expect((await h.call('/api/sessions', { auth: false, headers: { cookie: cookie! } })).status).toBe(401);
  });

  it('refuses every login for the rest of the minute after 10 failures, the right token too', async () => {
    for (let i = 0; i < 10; i++) expect((await login({ token: `guess-${i}` })).status).toBe(401);
    const blocked = await login({ token: h.token });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('too_many_attempts');
    now += 60_000;
    expect((await login({ token: h.token })).status).toBe(200);
  });
});

describe('GET / and the assets', () => {
  it('serves the login page before login and the app after, each with a strict CSP', async () => {
    h = await startHarness({ dashboardDir: dashboardDir() });
    const before = await h.call('/', { auth: false });
    expect(before.status).toBe(200);
    expect(before.text).toBe('/* login.html */');
    expect(before.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(before.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await h.call('/assets/app.js', { auth: false })).status).toBe(401);
    expect((await h.call('/assets/login.js', { auth: false })).text).toBe('/* login.js */');
    const { cookie } = await login({ token: h.token });
    expect((await h.call('/', { auth: false, headers: { cookie: cookie! } })).text).toBe('/* app.html */');
    expect((await h.call('/assets/app.js', { auth: false, headers: { cookie: cookie! } })).text).toBe('/* app.js */');
  });

  it('says the dashboard is not built when its files are missing', async () => {
    h = await startHarness({ dashboardDir: join(tmpdir(), 'pg-no-such-dashboard') });
    const r = await h.call('/', { auth: false });
    expect(r.status).toBe(503);
    expect(r.body.error).toEqual({ code: 'dashboard_not_built', message: expect.stringContaining('npm run build') });
  });
});
