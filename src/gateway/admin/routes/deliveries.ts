/**
 * The delivery ledger (gateway.md §7): `GET /api/deliveries?session_id=&task_id=&platform=&state=&order=&limit=&offset=`
 * lists outbound platform messages (newest first by default; `order=asc` reads one reply's timeline in
 * order). `POST /api/deliveries/:id/resend` posts a dead letter (`failed`) again through the runtime:
 * 404 `delivery_not_found`, 409 when it is not failed or has nothing to send, 503 when its platform is not
 * running, 502 when the platform refuses again. `GET /api/tasks/:id/timeline` is one Task's delivery in
 * order: `{task_id, session_id, deliveries, events}`, events being the inbound message, the start and every
 * post, edit, draft, retry, 429 and failure (404 `task_not_found` when the ledger has nothing of it).
 */
import { Router } from 'express';
import * as z from 'zod';
import { PLATFORMS } from '../../config';
import type { GatewayStore } from '../../store';
import { ApiError } from '../errors';
import type { AdminRuntime } from '../types';
import { lazySchema, parseInput, queryInt, queryText } from '../validate';

const STATES = ['pending', 'sent', 'failed', 'finalized', 'interrupted'] as const;

const listQuery = lazySchema(() =>
  z.strictObject({
    session_id: queryText('a session id').optional(),
    task_id: queryText('a task id').optional(),
    platform: z.enum(PLATFORMS, { error: `expected one of ${PLATFORMS.join('|')}` }).optional(),
    state: z.enum(STATES, { error: `expected one of ${STATES.join('|')}` }).optional(),
    order: z.enum(['asc', 'desc'], { error: 'expected asc or desc' }).default('desc'),
    limit: queryInt(1, 500).default(100),
    offset: queryInt(0, 1_000_000).default(0),
  }),
);

const idParam = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(/^[1-9]\d{0,14}$/, { error: 'expected a delivery id (a positive integer)' }).transform(Number),
  }),
);

const taskParam = lazySchema(() =>
  z.strictObject({ id: z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, { error: 'expected a task id' }) }),
);

const FAILURE = {
  not_found: [404, 'delivery_not_found'],
  not_failed: [409, 'not_a_dead_letter'],
  nothing_to_send: [409, 'nothing_to_send'],
  no_conversation: [409, 'no_conversation'],
  platform_not_running: [503, 'platform_not_running'],
  send_failed: [502, 'send_failed'],
} as const;

export function deliveryRoutes(store: GatewayStore, runtime: AdminRuntime): Router {
  const r = Router();

  r.get('/deliveries', async (req, res) => {
    const q = parseInput(listQuery, req.query, 'query');
    const deliveries = await store.listDeliveries({
      session_id: q.session_id, task_id: q.task_id, platform: q.platform, state: q.state,
      newest_first: q.order === 'desc', limit: q.limit, offset: q.offset,
    });
    res.json({ deliveries, limit: q.limit, offset: q.offset });
  });

  r.get('/tasks/:id/timeline', async (req, res) => {
    const { id } = parseInput(taskParam, req.params, 'path');
    const [deliveries, events] = await Promise.all([store.listDeliveries({ task_id: id, limit: 500 }), store.listDeliveryEvents(id, 2000)]);
    if (deliveries.length === 0 && events.length === 0) throw new ApiError(404, 'task_not_found', `the delivery ledger has nothing of task ${JSON.stringify(id)}`);
    res.json({ task_id: id, session_id: deliveries.find((d) => d.session_id)?.session_id ?? null, deliveries, events });
  });

  r.post('/deliveries/:id/resend', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const out = await runtime.resendDelivery(id);
    if (!out.ok) {
      const [status, code] = FAILURE[out.code];
      throw new ApiError(status, code, out.message);
    }
    res.json({ delivery: out.delivery });
  });

  return r;
}
