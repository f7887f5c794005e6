/**
 * HTTP face of the web adapter, mounted on the gateway listener behind the admin token:
 *   POST /api/web/conversations/:id/messages {text}            → 202 {message}
 *   POST /api/web/conversations/:id/actions {message_id, payload} → 200 {answer}
 *   GET  /api/web/conversations/:id/messages                    → {messages}
 *   GET  /api/web/conversations/:id/events                      → Server-Sent Events (WebEvent JSON), heartbeat 20 s
 * Bodies are validated with zod; errors are `{error:{code,message}}`.
 */
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as z from 'zod';
import type { ChatUser } from '../contract/messages';
import { WebConversationError, type WebAdapter } from './web-adapter';

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A message of 100,000 characters fits (JSON-escaped it may take up to 6 bytes a character only for control characters). */
export const WEB_BODY_LIMIT_BYTES = 256 * 1024;
const SendBody = z.strictObject({ text: z.string().trim().min(1, 'text must not be empty').max(100_000, 'text is longer than 100000 characters') });
const ClickBody = z.strictObject({ message_id: z.string().min(1, 'message_id must not be empty'), payload: z.string().min(1, 'payload must not be empty').max(200) });

function fail(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

function zodMessage(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

export interface WebRoutesOptions {
  /** Authentication for every route (the gateway passes its admin-token check). */
  auth: RequestHandler;
  /** Who the playground user is (default: the operator, `admin`). */
  user?: ChatUser;
  heartbeatMs?: number;
}

export function webRoutes(adapter: WebAdapter, o: WebRoutesOptions): (app: Express) => void {
  const user = o.user ?? { id: 'admin', name: 'admin' };
  const router = express.Router();
  router.use(express.json({ limit: WEB_BODY_LIMIT_BYTES }));
  router.param('id', (req: Request, res: Response, next: NextFunction, id: string) => {
    if (!CONVERSATION_ID.test(id)) return fail(res, 400, 'bad_request', 'conversation id must be 1–64 characters of [A-Za-z0-9_-]');
    next();
  });

  router.post('/conversations/:id/messages', async (req, res, next) => {
    const body = SendBody.safeParse(req.body);
    if (!body.success) return fail(res, 400, 'bad_request', zodMessage(body.error));
    try {
      const message = await adapter.send(String(req.params.id), user, body.data.text);
      res.status(202).json({ message });
    } catch (err) {
      next(err);
    }
  });

  router.post('/conversations/:id/actions', async (req, res, next) => {
    const body = ClickBody.safeParse(req.body);
    if (!body.success) return fail(res, 400, 'bad_request', zodMessage(body.error));
    try {
      const answer = await adapter.click(String(req.params.id), body.data.message_id, body.data.payload, user);
      res.json({ answer });
    } catch (err) {
      next(err);
    }
  });

  router.get('/conversations/:id/messages', (req, res) => {
    res.json({ messages: adapter.messages(String(req.params.id)) });
  });

  router.get('/conversations/:id/events', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': connected\n\n');
    const unsubscribe = adapter.subscribe(String(req.params.id), (e) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`));
    const beat = setInterval(() => res.write(': heartbeat\n\n'), o.heartbeatMs ?? 20_000);
    beat.unref();
    req.on('close', () => {
      clearInterval(beat);
      unsubscribe();
    });
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (err instanceof WebConversationError) return fail(res, err.code === 'not_started' ? 503 : err.code === 'not_found' ? 404 : 400, err.code, err.message);
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return fail(res, 400, 'bad_request', 'body is not valid JSON');
    if (type === 'entity.too.large') return fail(res, 413, 'payload_too_large', `request body is larger than the limit of ${WEB_BODY_LIMIT_BYTES} bytes`);
    fail(res, 500, 'internal', 'internal error');
  });

  return (app) => {
    app.use('/api/web', o.auth, router);
  };
}
