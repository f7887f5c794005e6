/**
 * Every admin API error is `{error: {code, message}}` with a fitting status. Handlers throw `ApiError`
 * (express 5 forwards rejected promises); body-parser failures are mapped here; anything else is a 500
 * `internal` whose detail goes to the log only, never to the client.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);

export function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

export const notFoundHandler: RequestHandler = (req, res) => {
  // originalUrl keeps a router's mount point; the query string is left out of the message.
  sendError(res, 404, 'not_found', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`);
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof ApiError) return sendError(res, err.status, err.code, err.message);
    const bp = (err ?? {}) as BodyParserError;
    if (bp.type === 'entity.too.large') return sendError(res, 413, 'payload_too_large', `request body is larger than the limit of ${bp.limit ?? '?'} bytes`);
    if (bp.type === 'entity.parse.failed') return sendError(res, 400, 'bad_request', 'body: expected valid JSON');
    if (bp.type === 'encoding.unsupported' || bp.type === 'charset.unsupported') return sendError(res, 415, 'unsupported_media_type', 'body: expected UTF-8 JSON');
    if (typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) return sendError(res, bp.status, 'bad_request', 'the request could not be read');
    logger.error({ err, method: req.method, path: req.path }, 'admin API request failed');
    sendError(res, 500, 'internal', 'internal error; see the gateway log');
  };
}
