/**
 * The webhook route `POST /telegram/webhook` on the gateway's HTTP listener: checks the
 * `X-Telegram-Bot-Api-Secret-Token` header in constant time (401 otherwise), answers 503 while the
 * adapter is not running (Telegram redelivers later), validates the body, acknowledges with 200 at once
 * and hands the update on; the work runs after the reply, so Telegram never waits on the agent.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import * as z from 'zod';
import type { UpdateLike } from './inbound';

export const TELEGRAM_WEBHOOK_PATH = '/telegram/webhook';
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export interface WebhookRouteOptions {
  secret: string;
  /** False before start() and after stop(). */
  accepting(): boolean;
  onUpdate(update: UpdateLike): void;
  logger: Logger;
  path?: string;
}

const updateSchema = z.looseObject({ update_id: z.number({ error: 'update_id must be a number' }).int('update_id must be an integer').nonnegative('update_id must not be negative') });

/** Constant-time comparison (both sides hashed first, so lengths leak nothing either). */
export function secretMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export function telegramWebhookRoutes(o: WebhookRouteOptions): (app: Express) => void {
  const path = o.path ?? TELEGRAM_WEBHOOK_PATH;
  return (app) => {
    const router = express.Router();
    router.post(
      path,
      (req: Request, res: Response, next: NextFunction) => {
        if (!secretMatches(o.secret, req.get(SECRET_HEADER))) {
          res.status(401).json({ error: { code: 'unauthorized', message: 'missing or wrong X-Telegram-Bot-Api-Secret-Token' } });
          return;
        }
        if (!o.accepting()) {
          res.status(503).json({ error: { code: 'unavailable', message: 'the Telegram adapter is not running' } });
          return;
        }
        next();
      },
      express.json({ limit: '1mb' }),
      (req: Request, res: Response) => {
        const parsed = updateSchema.safeParse(req.body);
        if (!parsed.success) {
          res.status(400).json({ error: { code: 'bad_update', message: `not a Telegram update: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}` } });
          return;
        }
        res.status(200).end();
        o.onUpdate(parsed.data as UpdateLike);
      },
    );
    router.use(path, (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      const status = (err as { status?: unknown }).status;
      o.logger.warn({ err: (err as Error).message }, 'telegram webhook: unreadable request');
      res.status(typeof status === 'number' && status >= 400 && status < 500 ? status : 400).json({ error: { code: 'bad_request', message: 'unreadable request body' } });
    });
    app.use(router);
  };
}
