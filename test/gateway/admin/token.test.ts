/**
 * First-start admin token: generated once (URL-safe, random), shown once on a terminal (or, when stdout is
 * not one, written to a 0600 file whose path is printed, or logged when a logger is given), stored only as its sha256 (the plain token is
 * nowhere in the database files); later starts, on the same or a reopened store, print nothing; with
 * PENGUIN_ADMIN_TOKEN set nothing is generated or stored.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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

function capture(isTTY = true) {
  const out = { text: '', isTTY, write: (s: string) => void (out.text += s) };
  return out;
}
const printedToken = (text: string) => /^ {4}(\S+)$/m.exec(text)?.[1];

describe('ensureAdminToken', () => {
  it('generates, prints once and stores only the hash', async () => {
    const out = capture();
    const r = await ensureAdminToken(store, {}, out, dir);
    const token = printedToken(out.text)!;
    expect(r).toEqual({ source: 'generated', token });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(out.text.split(token)).toHaveLength(2);
    expect((await store.listAdminTokens()).map((r) => r.hash)).toEqual([hashAdminToken(token)]);
    expect(await isAdminToken(token, store)).toBe(true);

    await store.close();
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(Buffer.from(token))).toBe(false);
    store = openSqliteStore(join(dir, 'gateway.db'));

    const later = capture();
    expect(await ensureAdminToken(store, {}, later, dir)).toEqual({ source: 'store' });
    expect(later.text).toBe('');
    expect(await store.listAdminTokens()).toHaveLength(1);
  });

  it('off a terminal (stdout carrying the log stream) writes a 0600 file and prints only its path', async () => {
    const out = capture(false);
    const r = await ensureAdminToken(store, {}, out, dir);
    if (r.source !== 'generated') throw new Error('expected a generated token');
    expect(r.file).toBe(join(dir, 'admin-token'));
    expect(readFileSync(r.file!, 'utf8')).toBe(`${r.token}\n`);
    expect(statSync(r.file!).mode & 0o777).toBe(0o600);
    expect(out.text).toContain(r.file!);
    expect(out.text).not.toContain(r.token);
    expect(await isAdminToken(r.token, store)).toBe(true);
  });

  it('off a terminal with a logger, says where the file is in one log record and writes nothing else', async () => {
    const out = capture(false);
    const records: { fields: Record<string, unknown>; msg: string }[] = [];
    const r = await ensureAdminToken(store, {}, out, dir, { warn: (fields, msg) => records.push({ fields, msg }) });
    if (r.source !== 'generated') throw new Error('expected a generated token');
    expect(out.text).toBe('');
    expect(records).toEqual([{ fields: { file: join(dir, 'admin-token') }, msg: expect.stringContaining(`it is in ${join(dir, 'admin-token')}`) }]);
    expect(JSON.stringify(records)).not.toContain(r.token);
    expect(readFileSync(r.file!, 'utf8')).toBe(`${r.token}\n`);
  });

  it('generates a different token in another home', async () => {
    const other = openSqliteStore(join(dir, 'other.db'));
    try {
      const a = capture();
      const b = capture();
      await ensureAdminToken(store, {}, a, dir);
      await ensureAdminToken(other, {}, b, dir);
      expect(printedToken(a.text)).not.toBe(printedToken(b.text));
    } finally {
      await other.close();
    }
  });

  it('does nothing when PENGUIN_ADMIN_TOKEN is set (blank counts as unset)', async () => {
    const out = capture();
    expect(await ensureAdminToken(store, { PENGUIN_ADMIN_TOKEN: 'mine-1234567890' }, out, dir)).toEqual({ source: 'env' });
    expect(out.text).toBe('');
    expect(await store.listAdminTokens()).toEqual([]);
    expect(await isAdminToken('mine-1234567890', store, 'mine-1234567890')).toBe(true);
    expect(await isAdminToken('mine-123456789', store, 'mine-1234567890')).toBe(false);

    expect(await ensureAdminToken(store, { PENGUIN_ADMIN_TOKEN: '  ' }, out, dir)).toMatchObject({ source: 'generated' });
  });
});
