/**
 * One log line per HTTP request on the gateway's listener once it is answered: method, path (never the
 * query string), status and duration. Headers, bodies and queries are not logged, so a bearer token cannot
 * reach the log from here. Server errors log at error, refused requests (401/403, on the admin API, the
 * playground or a platform webhook) at warn, everything else at debug. Refusals are rate-limited per path
 * (a credential-guessing flood must not flood the log): the first few per minute, then one summary line.
 */
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

const REFUSALS_PER_WINDOW = 5;
const WINDOW_MS = 60_000;

interface Window {
  start: number;
  logged: number;
  suppressed: number;
}

export function requestLog(logger: Logger, now: () => number = Date.now): RequestHandler {
  const windows = new Map<string, Window>();
  const refused = (path: string, line: Record<string, unknown>) => {
    const t = now();
    let w = windows.get(path);
    if (!w || t - w.start >= WINDOW_MS) {
      if (w && w.suppressed > 0) logger.warn({ path, suppressed: w.suppressed }, `${w.suppressed} more refused requests to ${path} were not logged`);
      w = { start: t, logged: 0, suppressed: 0 };
      windows.set(path, w);
    }
    if (w.logged < REFUSALS_PER_WINDOW) {
      w.logged++;
      logger.warn(line, 'request refused');
    } else w.suppressed++;
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = req.originalUrl.split('?')[0];
      const line = { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) logger.error(line, 'request failed');
      else if (res.statusCode === 401 || res.statusCode === 403) refused(path, line);
      else logger.debug(line, 'request');
    });
    next();
  };
}
