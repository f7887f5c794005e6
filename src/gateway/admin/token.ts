/**
 * `ensureAdminToken(store, env, out, home)`: at start-up, makes sure the admin API has a credential. With
 * `PENGUIN_ADMIN_TOKEN` set nothing is generated; otherwise, when the store holds no token hash yet, a
 * random URL-safe token is generated and its sha256 stored. The plain token goes only where the operator
 * alone reads it: the terminal when `out` is one, else a 0600 file under the data root whose path is
 * printed, as a log record when a logger is given (off a terminal stdout carries the JSON log stream to a
 * collector). Later starts find the hash and print nothing.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashAdminToken, type AdminTokenStore } from '../store';

export interface TextOut {
  write(s: string): unknown;
  /** A terminal (process.stdout.isTTY): the token may be shown there. */
  isTTY?: boolean;
}

export type AdminTokenSource = 'env' | 'store' | 'generated';

/** Where a generated token is written when no terminal shows it. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/** 32 random bytes, base64url: 43 characters, no padding, safe in headers and URLs. */
export function generateAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

export function envAdminToken(env: Record<string, string | undefined>): string | undefined {
  const v = env.PENGUIN_ADMIN_TOKEN?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export type EnsuredAdminToken = { source: 'env' | 'store' } | { source: 'generated'; token: string; file?: string };

/** The part of the logger the token notice needs. */
export interface NoticeLog {
  warn(fields: Record<string, unknown>, msg: string): void;
}

export async function ensureAdminToken(store: AdminTokenStore, env: Record<string, string | undefined>, out: TextOut, home: string, log?: NoticeLog): Promise<EnsuredAdminToken> {
  if (envAdminToken(env) !== undefined) return { source: 'env' };
  if ((await store.listAdminTokens()).length > 0) return { source: 'store' };
  const token = generateAdminToken();
  await store.addAdminTokenHash(hashAdminToken(token));
  const use = 'Send it as "Authorization: Bearer <token>". Set PENGUIN_ADMIN_TOKEN to use a token of your own.';
  if (out.isTTY) {
    out.write(['', 'penguin-gateway: generated an admin token for the admin API and dashboard.', 'It is shown this once and stored only as a hash; keep it somewhere safe:', '', `    ${token}`, '', use, ''].join('\n'));
    return { source: 'generated', token };
  }
  const file = join(home, ADMIN_TOKEN_FILE);
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  if (log) {
    log.warn({ file }, `generated an admin token for the admin API and dashboard: it is in ${file} (readable only by this user; the database keeps only its hash); copy it somewhere safe, then delete the file`);
    return { source: 'generated', token, file };
  }
  out.write(['', 'penguin-gateway: generated an admin token for the admin API and dashboard.', `It is in ${file} (readable only by this user); the database keeps only its hash.`, 'Copy it somewhere safe, then delete the file.', use, ''].join('\n'));
  return { source: 'generated', token, file };
}
