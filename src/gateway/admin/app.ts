/**
 * `createAdminApp(deps)`: the admin HTTP API and the dashboard as one express app. `/healthz` and `/readyz`
 * are open; `/api/auth` logs the dashboard in and out; `/metrics` and everything else under `/api` take the
 * admin bearer token or a dashboard login (whose state changes need its CSRF token), checked before any body
 * is read; `/` serves the dashboard (login page until logged in). JSON bodies are capped at 64 KiB; every
 * error, unknown routes included, is `{error: {code, message}}`; known secrets (vault values, gateway
 * credentials) are masked in every JSON response and every streamed transcript batch.
 */
import express, { Router, type Express, type RequestHandler } from 'express';
import { dashboardRoutes } from './dashboard';
import { errorHandler, notFoundHandler } from './errors';
import { LoginSessions, LoginThrottle, loginRoutes, requireAdmin } from './login';
import { requestLog } from './request-log';
import { accessRoutes } from './routes/access';
import { approvalRoutes } from './routes/approvals';
import { deliveryRoutes } from './routes/deliveries';
import { healthRoutes, metricsHandler } from './routes/health';
import { overviewRoutes } from './routes/overview';
import { scheduleRoutes } from './routes/schedules';
import { sessionRoutes } from './routes/sessions';
import { usageRoutes } from './routes/usage';
import type { AdminDeps } from './types';

export const JSON_BODY_LIMIT = '64kb';

/** The guard shared by the admin API, the playground routes and the dashboard bundle. */
export function adminGuard(deps: Pick<AdminDeps, 'store' | 'config'> & { sessions: LoginSessions }): RequestHandler {
  return requireAdmin({ store: deps.store, configuredToken: deps.config.admin_token, sessions: deps.sessions });
}

export function createAdminApp(deps: AdminDeps): Express {
  const { config, store, runtime, metrics, logger } = deps;
  const sessions = deps.sessions ?? new LoginSessions(deps.now ? { now: deps.now } : {});
  const app = express();
  app.disable('x-powered-by');
  // The gateway logs every request of its listener itself (adapter routes included); standalone, log here.
  if (deps.logRequests !== false) app.use(requestLog(logger));
  app.use(healthRoutes(runtime));

  const auth = adminGuard({ store, config, sessions });
  app.get('/metrics', auth, metricsHandler(metrics));
  app.use('/api/auth', loginRoutes({ store, configuredToken: config.admin_token, sessions, throttle: new LoginThrottle(deps.now ? { now: deps.now } : {}), home: config.home }));

  const api = Router();
  api.use(auth);
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const redactor = deps.redactor;
    if (redactor) {
      // The trace keeps the truth for the operator's files; what the API serves never shows a secret.
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(redactor.redactDeep(body));
      res.locals.redact = (v: unknown) => redactor.redactDeep(v);
    }
    next();
  });
  api.use(express.json({ limit: JSON_BODY_LIMIT }));
  api.use(overviewRoutes(store, runtime));
  api.use(sessionRoutes(store, config.home, runtime));
  api.use(approvalRoutes(store, runtime));
  api.use(usageRoutes(store, deps.pricing));
  api.use(accessRoutes(store, runtime, config.allow_users));
  api.use(deliveryRoutes(store, runtime));
  api.use(scheduleRoutes(runtime));
  api.use(notFoundHandler);
  app.use('/api', api);
  app.use(dashboardRoutes({ sessions, guard: auth, ...(deps.dashboardDir ? { dir: deps.dashboardDir } : {}) }));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
