/**
 * `requireAdmin(o)`: the one guard of the admin API, the playground routes and the dashboard's app bundle.
 * A bearer token (scripts) is checked as before and needs no CSRF token, since a header is never sent by the
 * browser on its own. Otherwise the session cookie must name a live login, and every state change
 * (anything but GET/HEAD/OPTIONS) must carry that login's CSRF token in `X-CSRF-Token`: 403 `csrf_failed`.
 * Neither: 401 `unauthorized`. The login is left in `res.locals.login` for the routes.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AdminTokenStore } from '../../store';
import { bearerToken, isAdminToken } from '../auth';
import { sendError } from '../errors';
import { SESSION_COOKIE, readCookie } from './cookies';
import { csrfMatches, type LoginSession, type LoginSessions } from './login-sessions';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AdminAuthOptions {
  store: AdminTokenStore;
  /** PENGUIN_ADMIN_TOKEN, when set. */
  configuredToken?: string;
  sessions: LoginSessions;
}

export function loginOf(req: Request, sessions: LoginSessions): { id: string; session: LoginSession } | undefined {
  const id = readCookie(req.get('cookie'), SESSION_COOKIE);
  const session = sessions.get(id);
  return id !== undefined && session ? { id, session } : undefined;
}

function unauthorized(res: Response): void {
  res.set('WWW-Authenticate', 'Bearer realm="penguin-gateway"');
  sendError(res, 401, 'unauthorized', 'a valid admin token is required (Authorization: Bearer <token>), or log in to the dashboard');
}

export function requireAdmin(o: AdminAuthOptions): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (header !== undefined) {
      const token = bearerToken(header);
      if (token !== undefined && (await isAdminToken(token, o.store, o.configuredToken))) return next();
      return unauthorized(res);
    }
    const login = loginOf(req, o.sessions);
    if (!login) return unauthorized(res);
    if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.get(CSRF_HEADER), login.session.csrf)) {
      return sendError(res, 403, 'csrf_failed', `a state change from the dashboard needs the login's CSRF token in the ${CSRF_HEADER} header`);
    }
    res.locals.login = login;
    next();
  };
}
