/**
 * The dashboard login under `/api/auth` (outside the token guard):
 *   POST /api/auth/login {token} | {password} → 200 {csrf, expires_at, via} + the session cookie;
 *        wrong credential 401 `login_failed` (one message for both), too many failures 429 `too_many_attempts`
 *   GET  /api/auth/session                    → {csrf, expires_at, via} of the cookie's login, else 401
 *   POST /api/auth/logout                     → 200, the login is forgotten and the cookie cleared (needs CSRF)
 * The token is checked like a bearer token; the password against `admin set-password`'s scrypt hash.
 */
import express, { Router, type Request } from 'express';
import * as z from 'zod';
import type { AdminTokenStore } from '../../store';
import { isAdminToken } from '../auth';
import { ApiError, sendError } from '../errors';
import { lazySchema, parseInput } from '../validate';
import { clearedSessionCookie, sessionCookie } from './cookies';
import { requireAdmin } from './guard';
import type { LoginSession, LoginSessions } from './login-sessions';
import { MAX_PASSWORD_LENGTH, readPasswordHash, verifyPassword } from './password';
import type { LoginThrottle } from './throttle';

const secret = (what: string) => z.string({ error: `expected the ${what} as a string` }).min(1, { error: `expected the ${what}` }).max(MAX_PASSWORD_LENGTH, { error: `expected the ${what} (at most ${MAX_PASSWORD_LENGTH} characters)` });
const loginBody = lazySchema(() =>
  z.union(
    [z.strictObject({ token: secret('admin token') }), z.strictObject({ password: secret('admin password') })],
    { error: 'expected a JSON object {"token": "..."} or {"password": "..."}' },
  ),
);

export interface LoginRoutesOptions {
  store: AdminTokenStore;
  configuredToken?: string;
  sessions: LoginSessions;
  throttle: LoginThrottle;
  home: string;
}

const view = (s: LoginSession) => ({ csrf: s.csrf, expires_at: s.expiresAt, via: s.via });
/** Behind a TLS-terminating proxy express sees plain http unless `trust proxy` is set; the cookie follows what it sees. */
const isHttps = (req: Request) => req.secure;

export function loginRoutes(o: LoginRoutesOptions): Router {
  const r = Router();
  r.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  r.post('/login', express.json({ limit: '8kb' }), async (req, res) => {
    const wait = o.throttle.blockedFor();
    if (wait > 0) {
      res.set('Retry-After', String(Math.ceil(wait / 1000)));
      throw new ApiError(429, 'too_many_attempts', `too many failed logins; try again in ${Math.ceil(wait / 1000)} s`);
    }
    const body = parseInput(loginBody, req.body, 'body');
    let via: LoginSession['via'] | undefined;
    if ('token' in body) via = (await isAdminToken(body.token, o.store, o.configuredToken)) ? 'token' : undefined;
    else {
      const hash = await readPasswordHash(o.home);
      via = hash !== undefined && (await verifyPassword(body.password, hash)) ? 'password' : undefined;
    }
    if (!via) {
      o.throttle.failed();
      return sendError(res, 401, 'login_failed', 'that admin token or password is not right');
    }
    const { id, session } = o.sessions.create(via);
    res.set('Set-Cookie', sessionCookie(id, o.sessions.ttlMs, isHttps(req)));
    res.json(view(session));
  });

  const guard = requireAdmin({ store: o.store, configuredToken: o.configuredToken, sessions: o.sessions });
  r.get('/session', guard, (_req, res) => {
    const login = res.locals.login as { session: LoginSession } | undefined;
    if (!login) throw new ApiError(400, 'bad_request', 'a bearer token has no dashboard login; log in with POST /api/auth/login');
    res.json(view(login.session));
  });

  r.post('/logout', guard, (req, res) => {
    const login = res.locals.login as { id: string } | undefined;
    if (login) o.sessions.delete(login.id);
    res.set('Set-Cookie', clearedSessionCookie(isHttps(req)));
    res.json({ logged_out: true });
  });

  return r;
}
