/**
 * Approvals: `GET /api/approvals?state=&session_id=&limit=&offset=` lists rows, newest first; `POST
 * /api/approvals/:id {decision: "allow"|"deny"}` asks the runtime to decide (it answers the waiting tool
 * call and edits the card). Unknown id: 404 `approval_not_found`; decided or expired already: 409.
 */
import { Router } from 'express';
import * as z from 'zod';
import { APPROVAL_ID_RE, type GatewayStore } from '../../store';
import { ApiError } from '../errors';
import { ADMIN_ACTOR, type AdminRuntime } from '../types';
import { lazySchema, parseInput, queryInt, queryText } from '../validate';

const STATES = ['pending', 'allowed', 'denied', 'expired', 'cancelled'] as const;

const listQuery = lazySchema(() =>
  z.strictObject({
    state: z.enum(STATES, { error: `expected one of ${STATES.join('|')}` }).optional(),
    session_id: queryText('a session id').optional(),
    limit: queryInt(1, 500).default(100),
    offset: queryInt(0, 1_000_000).default(0),
  }),
);

const idParam = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(APPROVAL_ID_RE, { error: 'expected an approval id (10 characters a-z 2-7)' }),
  }),
);

const decideBody = lazySchema(() =>
  z.strictObject(
    { decision: z.enum(['allow', 'deny'], { error: 'expected "allow" or "deny"' }) },
    { error: 'expected a JSON object {"decision": "allow"|"deny"}' },
  ),
);

const FAILURE_STATUS = { not_found: 404, already_decided: 409, expired: 409 } as const;
const FAILURE_CODE = { not_found: 'approval_not_found', already_decided: 'already_decided', expired: 'approval_expired' } as const;

export function approvalRoutes(store: GatewayStore, runtime: AdminRuntime): Router {
  const r = Router();

  r.get('/approvals', async (req, res) => {
    const q = parseInput(listQuery, req.query, 'query');
    res.json({ approvals: await store.listApprovals({ state: q.state, session_id: q.session_id, limit: q.limit, offset: q.offset }), limit: q.limit, offset: q.offset });
  });

  r.post('/approvals/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const { decision } = parseInput(decideBody, req.body, 'body');
    const result = await runtime.decideApproval(id, decision, ADMIN_ACTOR);
    if (!result.ok) throw new ApiError(FAILURE_STATUS[result.code], FAILURE_CODE[result.code], result.message);
    res.json({ id, state: result.state });
  });

  return r;
}
