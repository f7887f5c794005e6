/**
 * `ensureAdminToken(store, env, out)`: at start-up, makes sure the admin API has a credential. With
 * `PENGUIN_ADMIN_TOKEN` set nothing is generated; otherwise, when the store holds no token hash yet, a
 * random URL-safe token is generated, its sha256 stored, and the plain token written once to `out`
 * (stdout, never the logger). Later starts find the hash and print nothing.
 */
import { randomBytes } from 'node:crypto';
import { hashAdminToken, type AdminTokenStore } from '../store';

export interface TextOut {
  write(s: string): unknown;
}

export type AdminTokenSource = 'env' | 'store' | 'generated';

/** 32 random bytes, base64url: 43 characters, no padding, safe in headers and URLs. */
export function generateAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

export function envAdminToken(env: Record<string, string | undefined>): string | undefined {
  const v = env.PENGUIN_ADMIN_TOKEN?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export async function ensureAdminToken(store: AdminTokenStore, env: Record<string, string | undefined>, out: TextOut): Promise<{ source: AdminTokenSource }> {
  if (envAdminToken(env) !== undefined) return { source: 'env' };
  if ((await store.listAdminTokens()).length > 0) return { source: 'store' };
  const token = generateAdminToken();
  await store.addAdminTokenHash(hashAdminToken(token));
  out.write(
    [
      '',
      'penguin-gateway: generated an admin token for the admin API and dashboard.',
      'It is shown this once and stored only as a hash; keep it somewhere safe:',
      '',
      `    ${token}`,
      '',
      'Send it as "Authorization: Bearer <token>". Set PENGUIN_ADMIN_TOKEN to use a token of your own.',
      '',
    ].join('\n'),
  );
  return { source: 'generated' };
}
