/**
 * The dashboard's optional admin password (`penguin-gateway admin set-password`): stored only as an scrypt
 * hash with a random salt in `<data root>/admin-password` (mode 0600, beside the other operator files, so
 * it survives a lost gateway.db like the journal does). `verifyPassword` compares in constant time; a
 * missing file means no password is set and only the admin token logs in.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const ADMIN_PASSWORD_FILE = 'admin-password';
/** Long enough that guessing it over the login's rate limit is hopeless. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/** scrypt cost: N=2^15, r=8, p=1 (~32 MiB, tens of ms): the OWASP floor for interactive logins. */
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LEN = 32;

function scrypt(password: string, salt: Buffer, p: { N: number; r: number; p: number }): Promise<Buffer> {
  const opts: ScryptOptions = { N: p.N, r: p.r, p: p.p, maxmem: 128 * p.N * p.r * 2 };
  return new Promise((resolve, reject) => scryptCb(password, salt, KEY_LEN, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$<salt b64url>$<key b64url>`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored.trim());
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // A tampered file must not make a login allocate without bound.
  if (N > 1 << 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5], 'base64url');
  const key = await scrypt(password, Buffer.from(m[4], 'base64url'), { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export function passwordFile(home: string): string {
  return join(home, ADMIN_PASSWORD_FILE);
}

/** The stored hash, or undefined when no password was set. */
export async function readPasswordHash(home: string): Promise<string | undefined> {
  try {
    const s = (await readFile(passwordFile(home), 'utf8')).trim();
    return s === '' ? undefined : s;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes the hash atomically (temp file + rename), readable by this user only. */
export async function writePasswordHash(home: string, hash: string): Promise<string> {
  const file = passwordFile(home);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${hash}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return file;
}
