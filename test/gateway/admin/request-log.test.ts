/**
 * The listener's request log: refused requests (401/403) are logged at warn with method, path and status,
 * at most five per path per minute, then one line saying how many were left out; the query string never
 * reaches the log.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { requestLog } from '../../../src/gateway/admin/request-log';

test('refusals are logged, rate-limited per path, with a summary of what was left out', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  let t = 0;
  const app = express();
  app.use(requestLog(logger, () => t));
  app.post('/telegram/webhook', (_req, res) => void res.status(401).end());
  app.get('/api/web/conversations/x/messages', (_req, res) => void res.status(401).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (let i = 0; i < 8; i++) await fetch(`${base}/telegram/webhook?secret=guess${i}`, { method: 'POST' });
    await fetch(`${base}/api/web/conversations/x/messages`);
    const refused = () => lines.filter((l) => l.msg === 'request refused');
    expect(refused().map((l) => l.path)).toEqual([...Array(5).fill('/telegram/webhook'), '/api/web/conversations/x/messages']);
    expect(refused()[0]).toMatchObject({ level: 40, method: 'POST', status: 401 });
    expect(JSON.stringify(lines)).not.toContain('guess');
    t += 60_000;
    await fetch(`${base}/telegram/webhook`, { method: 'POST' });
    expect(lines.find((l) => l.suppressed === 3)).toMatchObject({ path: '/telegram/webhook', msg: '3 more refused requests to /telegram/webhook were not logged' });
    expect(refused()).toHaveLength(7);
  } finally {
    server.close();
  }
});
