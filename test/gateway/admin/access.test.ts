/**
 * Pairing and allowlist over the admin API: a pending code is listed, approved (the user lands on the
 * allowlist and the runtime hears of it) or denied (no allowlist entry), repeated or unknown codes are
 * refused with 409/404, and the allowlist's add / list / remove round trip with input validation.
 */
import { startHarness, type Harness } from './helpers';

let h: Harness;
afterEach(() => h.close());

describe('pairing', () => {
  beforeEach(async () => {
    h = await startHarness();
  });
  const request = async (user_id: string, expires_at = Date.now() + 3_600_000) => (await h.store.requestPairing({ platform: 'telegram', user_id, user_name: 'ann', chat: '42', expires_at })).row;

  it('lists pending requests and approves one: the user is allowlisted and the runtime told', async () => {
    const p = await request('42');
    const list = await h.call('/api/pairing?state=pending');
    expect(list.status).toBe(200);
    expect(list.body.requests).toEqual([expect.objectContaining({ code: p.code, platform: 'telegram', user_id: '42', state: 'pending' })]);

    // Codes are typed by people: lower case and stray spaces are accepted.
    const r = await h.call(`/api/pairing/${p.code.toLowerCase()}/approve`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.request).toMatchObject({ code: p.code, state: 'approved' });
    expect(await h.store.isAllowed('telegram', '42')).toBe(true);
    expect((await h.store.listAllowed())[0]).toMatchObject({ platform: 'telegram', user_id: '42', added_by: 'web:admin' });
    expect(h.runtime.pairings.map((x) => [x.code, x.state])).toEqual([[p.code, 'approved']]);
    expect((await h.call('/api/pairing?state=pending')).body.requests).toEqual([]);
  });

  it('denies a request without allowlisting, and refuses a second decision with 409', async () => {
    const p = await request('43');
    const r = await h.call(`/api/pairing/${p.code}/deny`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.request.state).toBe('denied');
    expect(await h.store.isAllowed('telegram', '43')).toBe(false);
    const again = await h.call(`/api/pairing/${p.code}/approve`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 'already_decided', message: `pairing code ${p.code} was already denied` } });
    expect(h.runtime.pairings).toHaveLength(1);
  });

  it('refuses an expired code with 409, an unknown one with 404 and a malformed one with 400', async () => {
    const p = await request('44', 1000);
    const expired = await h.call(`/api/pairing/${p.code}/approve`, { method: 'POST' });
    expect(expired.status).toBe(409);
    expect(expired.body.error.code).toBe('pairing_expired');
    const unknown = await h.call('/api/pairing/ABCDEFGH/approve', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('pairing_not_found');
    const bad = await h.call('/api/pairing/0000/approve', { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ code: 'bad_request', message: expect.stringMatching(/^code: expected a pairing code/) });
    expect(h.runtime.pairings).toEqual([]);
  });

  it('validates the state filter', async () => {
    const r = await h.call('/api/pairing?state=open');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('query.state: expected one of pending|approved|denied|expired, found "open"');
  });
});

describe('allowlist', () => {
  beforeEach(async () => {
    h = await startHarness({ env: { PENGUIN_ALLOW_USERS: 'slack:U1,telegram:7' } });
  });

  it('adds, lists, filters and removes users', async () => {
    const add = await h.call('/api/allowlist', { method: 'POST', json: { user: 'telegram:42' } });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ user: 'telegram:42', added: true });
    const again = await h.call('/api/allowlist', { method: 'POST', json: { user: ' telegram:42 ' } });
    expect(again.status).toBe(200);
    expect(again.body.added).toBe(false);
    await h.call('/api/allowlist', { method: 'POST', json: { user: 'discord:99' } });

    const all = await h.call('/api/allowlist');
    expect(all.body.users.map((u: any) => `${u.platform}:${u.user_id}`)).toEqual(['discord:99', 'telegram:42']);
    expect(all.body.users[0].added_by).toBe('web:admin');
    expect(all.body.from_env).toEqual(['slack:U1', 'telegram:7']);
    const tg = await h.call('/api/allowlist?platform=telegram');
    expect(tg.body.users.map((u: any) => u.user_id)).toEqual(['42']);
    expect(tg.body.from_env).toEqual(['telegram:7']);

    const del = await h.call('/api/allowlist/telegram:42', { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ user: 'telegram:42', removed: true });
    expect(await h.store.isAllowed('telegram', '42')).toBe(false);
    const gone = await h.call('/api/allowlist/telegram%3A42', { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { code: 'not_allowlisted', message: 'telegram:42 is not on the allowlist' } });
  });

  it.each([
    [{ user: 'irc:bob' }, 'body.user: expected platform:user_id with platform one of telegram|slack|discord|web (e.g. telegram:42, slack:U123), found "irc:bob"'],
    [{ user: 42 }, 'body.user: expected platform:user_id with platform one of telegram|slack|discord|web (e.g. telegram:42, slack:U123), found 42'],
    [{ platform: 'telegram' }, 'body.user: expected platform:user_id with platform one of telegram|slack|discord|web (e.g. telegram:42, slack:U123), found nothing; body: unknown field "platform"'],
  ])('refuses the body %j with 400 naming the field', async (json, message) => {
    const r = await h.call('/api/allowlist', { method: 'POST', json });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('refuses a malformed user in the path and an unknown platform filter', async () => {
    expect((await h.call('/api/allowlist/telegram:abc', { method: 'DELETE' })).body.error.message).toMatch(/^path\.user: expected platform:user_id/);
    expect((await h.call('/api/allowlist?platform=irc')).status).toBe(400);
  });
});
