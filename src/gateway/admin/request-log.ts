/**
 * One log line per admin request once it is answered: method, path (never the query string), status and
 * duration. Headers, bodies and queries are not logged, so a bearer token cannot reach the log from here.
 * Server errors log at error, refused credentials at warn, everything else at debug.
 */
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) logger.error(line, 'admin request failed');
      else if (res.statusCode === 401 || res.statusCode === 403) logger.warn(line, 'admin request refused');
      else logger.debug(line, 'admin request');
    });
    next();
  };
}
