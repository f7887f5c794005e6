/**
 * First-start admin token: generated once (URL-safe, random), printed once to the given output, stored
 * only as its sha256 (the plain token is nowhere in the database files); later starts, on the same or a
 * reopened store, print nothing; with PENGUIN_ADMIN_TOKEN set nothing is generated or stored.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminToken, isAdminToken } from '../../../src/gateway/admin';
import { hashAdminToken, openSqliteStore, type SqliteStore } from '../../../src/gateway/store';

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-token-'));
  store = openSqliteStore(join(dir, 'gateway.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out = { text: '', write: (s: string) => void (out.text += s) };
  return out;
}
const printedToken = (text: string) => /^ {4}(\S+)$/m.exec(text)?.[1];

describe('ensureAdminToken', () => {
  it('generates, prints once and stores only the hash', async () => {
    const out = capture();
    expect(await ensureAdminToken(store, {}, out)).toEqual({ source: 'generated' });
    const token = printedToken(out.text)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(out.text.split(token)).toHaveLength(2);
    expect((await store.listAdminTokens()).map((r) => r.hash)).toEqual([hashAdminToken(token)]);
    expect(await isAdminToken(token, store)).toBe(true);

    await store.close();
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(Buffer.from(token))).toBe(false);
    store = openSqliteStore(join(dir, 'gateway.db'));

    const later = capture();
    expect(await ensureAdminToken(store, {}, later)).toEqual({ source: 'store' });
    expect(later.text).toBe('');
    expect(await store.listAdminTokens()).toHaveLength(1);
  });

  it('generates a different token in another home', async () => {
    const other = openSqliteStore(join(dir, 'other.db'));
    try {
      const a = capture();
      const b = capture();
      await ensureAdminToken(store, {}, a);
      await ensureAdminToken(other, {}, b);
      expect(printedToken(a.text)).not.toBe(printedToken(b.text));
    } finally {
      await other.close();
    }
  });

  it('does nothing when PENGUIN_ADMIN_TOKEN is set (blank counts as unset)', async () => {
    const out = capture();
    expect(await ensureAdminToken(store, { PENGUIN_ADMIN_TOKEN: 'mine-1234567890' }, out)).toEqual({ source: 'env' });
    expect(out.text).toBe('');
    expect(await store.listAdminTokens()).toEqual([]);
    expect(await isAdminToken('mine-1234567890', store, 'mine-1234567890')).toBe(true);
    expect(await isAdminToken('mine-123456789', store, 'mine-1234567890')).toBe(false);

    expect(await ensureAdminToken(store, { PENGUIN_ADMIN_TOKEN: '  ' }, out)).toEqual({ source: 'generated' });
  });
});
