/**
 * Health endpoints. `/healthz` (no auth): the process answers. `/readyz` (no auth): 200 when the runtime
 * takes events and every configured adapter is connected, else 503; the body lists the adapters either
 * way (states only, no credentials) and this instance (id, conversations it owns, live peers).
 * `/metrics` (auth is applied by the app): Prometheus text.
 */
import { Router, type RequestHandler } from 'express';
import type { GatewayMetrics } from '../metrics';
import type { AdminRuntime, RuntimeHealth } from '../types';

export function isReady(h: RuntimeHealth): boolean {
  return h.accepting && h.adapters.every((a) => a.state === 'connected' || a.state === 'disabled');
}

export function healthRoutes(runtime: AdminRuntime): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  r.get('/readyz', (_req, res) => {
    const h = runtime.health();
    const ready = isReady(h);
    res.status(ready ? 200 : 503).json({ ready, accepting: h.accepting, adapters: h.adapters, ...(h.instance ? { instance: h.instance } : {}) });
  });
  return r;
}

export function metricsHandler(metrics: GatewayMetrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.text();
    res.set('Content-Type', metrics.contentType).send(body);
  };
}
