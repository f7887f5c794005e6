/** Pairing requests, the allowlist and admin token hashes. */
import { PAIRING_CODE_RE, hashAdminToken, type GatewayStore } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';

describeBackends('access', (backend) => {
  let t: TestStore;
  let store: GatewayStore;
  beforeEach(async () => {
    t = await openTestStore(backend);
    store = t.store;
  });
  afterEach(() => t.cleanup());

  describe('pairing', () => {
    it('gives one code per user at a time and a new one after expiry', async () => {
      const p = (await store.requestPairing({ platform: 'telegram', user_id: '42', user_name: 'ann', chat: '42', expires_at: t.clock.t + 600_000 })).row;
      expect(p.code).toMatch(PAIRING_CODE_RE);
      expect(p).toMatchObject({ state: 'pending', user_name: 'ann', created_at: t.clock.t, decided_at: null });
      expect(((await store.requestPairing({ platform: 'telegram', user_id: '42', expires_at: t.clock.t + 999 })).row).code).toBe(p.code);
      const other = (await store.requestPairing({ platform: 'slack', user_id: '42', expires_at: t.clock.t + 10 })).row;
      expect(other.code).not.toBe(p.code);

      t.clock.t += 600_000;
      const fresh = (await store.requestPairing({ platform: 'telegram', user_id: '42', expires_at: t.clock.t + 600_000 })).row;
      expect(fresh.code).not.toBe(p.code);
      expect(await store.expirePairings(t.clock.t)).toBe(2);
      expect((await store.getPairing(p.code))?.state).toBe('expired');
      expect((await store.listPairings({ state: 'pending' })).map((r) => r.code)).toEqual([fresh.code]);
      expect(await store.listPairings({ limit: 2 })).toHaveLength(2);
    });

    it('approves into the allowlist atomically, case-insensitively, once', async () => {
      const p = (await store.requestPairing({ platform: 'discord', user_id: '80351110224678912', expires_at: t.clock.t + 1000 })).row;
      expect(await store.isAllowed('discord', '80351110224678912')).toBe(false);
      t.clock.t += 5;
      const r = await store.decidePairing(` ${p.code.toLowerCase()} `, 'approved', 'cli');
      expect(r).toMatchObject({ ok: true, row: { state: 'approved', decided_at: t.clock.t } });
      expect(await store.isAllowed('discord', '80351110224678912')).toBe(true);
      expect(await store.listAllowed('discord')).toEqual([{ platform: 'discord', kind: 'user', user_id: '80351110224678912', added_by: 'cli', created_at: t.clock.t }]);
      expect(await store.decidePairing(p.code, 'denied', 'cli')).toMatchObject({ ok: false, reason: 'already_decided', row: { state: 'approved' } });
      expect(await store.decidePairing('ZZZZZZZZ', 'approved', null)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('refuses an expired code and a denial adds nobody', async () => {
      const late = (await store.requestPairing({ platform: 'telegram', user_id: '1', expires_at: t.clock.t + 10 })).row;
      t.clock.t += 10;
      expect(await store.decidePairing(late.code, 'approved', 'op')).toMatchObject({ ok: false, reason: 'expired', row: { state: 'expired' } });
      const no = (await store.requestPairing({ platform: 'telegram', user_id: '2', expires_at: t.clock.t + 10 })).row;
      expect(await store.decidePairing(no.code, 'denied', 'op')).toMatchObject({ ok: true, row: { state: 'denied' } });
      expect(await store.listAllowed()).toEqual([]);
    });
  });

  describe('allowlist', () => {
    it('adds once, lists, checks and removes', async () => {
      expect(await store.allowUser('telegram', '42', 'env')).toBe(true);
      expect(await store.allowUser('telegram', '42', 'someone-else')).toBe(false);
      await store.allowUser('slack', 'U123', null, 5);
      expect((await store.listAllowed()).map((r) => `${r.platform}:${r.user_id}:${r.added_by}`)).toEqual(['slack:U123:null', 'telegram:42:env']);
      expect(await store.isAllowed('slack', 'U123')).toBe(true);
      expect(await store.disallowUser('slack', 'U123')).toBe(true);
      expect(await store.disallowUser('slack', 'U123')).toBe(false);
      expect(await store.isAllowed('slack', 'U123')).toBe(false);
    });

    it('keeps groups apart from users that share an id, and a group pairing approves the group', async () => {
      const { row, created } = await store.requestPairing({ platform: 'telegram', kind: 'group', user_id: '-1001', user_name: 'Team chat', expires_at: t.clock.t + 1000 });
      expect(created).toBe(true);
      expect(row.kind).toBe('group');
      expect((await store.requestPairing({ platform: 'telegram', kind: 'group', user_id: '-1001', expires_at: t.clock.t + 1000 })).created).toBe(false);
      expect((await store.requestPairing({ platform: 'telegram', user_id: '-1001', expires_at: t.clock.t + 1000 })).created).toBe(true);
      await store.decidePairing(row.code, 'approved', 'op');
      expect(await store.isAllowed('telegram', '-1001', 'group')).toBe(true);
      expect(await store.isAllowed('telegram', '-1001')).toBe(false);
      expect(await store.allowUser('telegram', '-1001', 'op')).toBe(true);
      expect(await store.disallowUser('telegram', '-1001', 'group')).toBe(true);
      expect(await store.isAllowed('telegram', '-1001')).toBe(true);
    });
  });

  describe('admin tokens', () => {
    it('stores hashes only', async () => {
      const h = hashAdminToken('s3cret-token');
      expect(h).toMatch(/^[0-9a-f]{64}$/);
      expect(h).not.toContain('s3cret');
      expect(await store.addAdminTokenHash(h)).toBe(true);
      expect(await store.addAdminTokenHash(h)).toBe(false);
      expect(await store.hasAdminTokenHash(hashAdminToken('s3cret-token'))).toBe(true);
      expect(await store.hasAdminTokenHash(hashAdminToken('guess'))).toBe(false);
      expect(await store.listAdminTokens()).toEqual([{ hash: h, created_at: t.clock.t }]);
      expect(await store.revokeAdminTokenHash(h)).toBe(true);
      expect(await store.hasAdminTokenHash(h)).toBe(false);
    });
  });
});
