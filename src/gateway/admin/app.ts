/**
 * `createAdminApp(deps)`: the admin HTTP API as an express app. `/healthz` and `/readyz` are open;
 * `/metrics` and everything under `/api` need the admin bearer token (checked before any body is read).
 * JSON bodies are capped at 64 KiB; every error, unknown routes included, is `{error: {code, message}}`;
 * known secrets (vault values, gateway credentials) are masked in every JSON response.
 */
import express, { Router, type Express } from 'express';
import { requireAdminToken } from './auth';
import { errorHandler, notFoundHandler } from './errors';
import { requestLog } from './request-log';
import { accessRoutes } from './routes/access';
import { approvalRoutes } from './routes/approvals';
import { healthRoutes, metricsHandler } from './routes/health';
import { scheduleRoutes } from './routes/schedules';
import { sessionRoutes } from './routes/sessions';
import { usageRoutes } from './routes/usage';
import type { AdminDeps } from './types';

export const JSON_BODY_LIMIT = '64kb';

export function createAdminApp(deps: AdminDeps): Express {
  const { config, store, runtime, metrics, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // The gateway logs every request of its listener itself (adapter routes included); standalone, log here.
  if (deps.logRequests !== false) app.use(requestLog(logger));
  app.use(healthRoutes(runtime));

  const auth = requireAdminToken(store, config.admin_token);
  app.get('/metrics', auth, metricsHandler(metrics));

  const api = Router();
  api.use(auth);
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    const redactor = deps.redactor;
    if (redactor) {
      // The trace keeps the truth for the operator's files; what the API serves never shows a secret.
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(redactor.redactDeep(body));
    }
    next();
  });
  api.use(express.json({ limit: JSON_BODY_LIMIT }));
  api.use(sessionRoutes(store, config.home));
  api.use(approvalRoutes(store, runtime));
  api.use(usageRoutes(store, deps.pricing));
  api.use(accessRoutes(store, runtime, config.allow_users));
  api.use(scheduleRoutes(runtime));
  api.use(notFoundHandler);
  app.use('/api', api);

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
