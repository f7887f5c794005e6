/**
 * The dashboard's pages on the gateway listener (gateway.md §10): `GET /` answers the app to a logged-in
 * operator and the login page to anyone else, so nothing but the login renders before login; the app's
 * bundle is behind the same guard, the login page's script and the stylesheet are open. Files come from
 * the esbuild output (`dist/dashboard`, built by `npm run build`); a missing build is a 503 that says so.
 * Every page carries a strict CSP: scripts, styles and connections to this origin only, no framing.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Router, type RequestHandler, type Response } from 'express';
import { sendError } from './errors';
import { loginOf, type LoginSessions } from './login';

/** `dist/dashboard` seen from dist/src/gateway/admin (the built gateway) or from src/gateway/admin (jest). */
export const DEFAULT_DASHBOARD_DIR = [resolve(__dirname, '../../../dashboard'), resolve(__dirname, '../../../dist/dashboard')].find((d) => existsSync(join(d, 'app.html')))
  ?? resolve(__dirname, '../../../dist/dashboard');

export const DASHBOARD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

function secure(res: Response): void {
  res.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  });
}

export interface DashboardOptions {
  sessions: LoginSessions;
  /** Guards the app bundle (the admin guard). */
  guard: RequestHandler;
  dir?: string;
}

export function dashboardRoutes(o: DashboardOptions): Router {
  const dir = o.dir ?? DEFAULT_DASHBOARD_DIR;
  const r = Router();
  const send = (file: string): RequestHandler => (_req, res) => {
    if (!existsSync(join(dir, file))) return sendError(res, 503, 'dashboard_not_built', `the dashboard is not built (${join(dir, file)} is missing): run npm run build`);
    secure(res);
    res.sendFile(file, { root: dir, dotfiles: 'deny' });
  };
  const page: RequestHandler = (req, res, next) => send(loginOf(req, o.sessions) ? 'app.html' : 'login.html')(req, res, next);
  r.get('/', page);
  r.get('/assets/login.js', send('login.js'));
  r.get('/assets/style.css', send('style.css'));
  r.get('/assets/app.js', o.guard, send('app.js'));
  return r;
}
