/**
 * HTTP mode on the gateway's own listener: Bolt's ExpressReceiver (signature check of `X-Slack-Signature`
 * over the raw body with a 5-minute window → 401, `url_verification` challenge, `ack()` within 3 s) on a
 * router the gateway mounts at `POST /slack/events` for events and interactivity. The receiver never
 * listens itself. Before the adapter runs (or after it stopped) requests get 503, so Slack redelivers later.
 */
import { ExpressReceiver, type Logger as BoltLogger } from '@slack/bolt';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

export const SLACK_EVENTS_PATH = '/slack/events';

export interface SlackHttpRoute {
  receiver: ExpressReceiver;
  routes(app: Express): void;
}

export function slackHttpRoute(o: { signingSecret: string; logger: BoltLogger; accepting(): boolean; path?: string }): SlackHttpRoute {
  const path = o.path ?? SLACK_EVENTS_PATH;
  const router = express.Router();
  const receiver = new ExpressReceiver({
    signingSecret: o.signingSecret,
    logger: o.logger,
    endpoints: path,
    router,
    app: express(),
    processBeforeResponse: false,
  });
  return {
    receiver,
    routes: (app) => {
      app.post(path, (_req: Request, res: Response, next: NextFunction) => {
        if (o.accepting()) return next();
        res.status(503).json({ error: { code: 'unavailable', message: 'the Slack adapter is not running' } });
      });
      app.use(router);
    },
  };
}
