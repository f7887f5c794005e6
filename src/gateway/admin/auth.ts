/**
 * Bearer-token guard for the admin API. The presented token is hashed (sha256) and compared in constant
 * time against the configured `PENGUIN_ADMIN_TOKEN`'s hash and every hash in the store, all of them, so
 * neither the match position nor a near-miss shows in the timing. Stored hashes are read per request so
 * a revoked token stops working at once. Missing or wrong token: 401 `unauthorized`, same message.
 */
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { hashAdminToken, type AdminTokenStore } from '../store';
import { sendError } from './errors';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export function bearerToken(header: string | undefined): string | undefined {
  const m = header === undefined ? null : BEARER.exec(header);
  return m ? m[1] : undefined;
}

function anyHashMatches(candidate: string, hashes: readonly string[]): boolean {
  const c = Buffer.from(candidate, 'hex');
  let matched = false;
  for (const h of hashes) {
    const b = Buffer.from(h, 'hex');
    // Every stored hash is the same length (sha256); a malformed one simply never matches.
    if (b.length === c.length && timingSafeEqual(b, c)) matched = true;
  }
  return matched;
}

export async function isAdminToken(token: string, store: AdminTokenStore, configured?: string): Promise<boolean> {
  const hashes = (await store.listAdminTokens()).map((r) => r.hash);
  if (configured !== undefined) hashes.push(hashAdminToken(configured));
  return anyHashMatches(hashAdminToken(token), hashes);
}

export function requireAdminToken(store: AdminTokenStore, configured?: string): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.get('authorization'));
    if (token !== undefined && (await isAdminToken(token, store, configured))) return next();
    res.set('WWW-Authenticate', 'Bearer realm="penguin-gateway"');
    sendError(res, 401, 'unauthorized', 'a valid admin token is required (Authorization: Bearer <token>)');
  };
}
