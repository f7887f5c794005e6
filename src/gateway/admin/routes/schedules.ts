/**
 * Schedules (the dashboard's Schedules page is built on exactly these shapes). `:id` is
 * `<project>:<agent>:<name>` (a bare `<name>` works when only one agent has it).
 *   GET  /api/schedules                → 200 {schedules: Schedule[]}  (every file of every routed agent, invalid ones too)
 *   GET  /api/schedules/:id            → 200 {schedule: Schedule}
 *   POST /api/schedules/:id/enable     {approval_mode?} → 200 {schedule}   writes `enabled = true` into the file; an
 *        approval_mode is written too and granted to this exact definition (an edit of the file voids the grant)
 *   POST /api/schedules/:id/disable    → 200 {schedule}                    writes `enabled = false`
 *   POST /api/schedules/:id/run        → 202 {run: Run}                    runs now (enabled or not); 409 when one already waits
 *   GET  /api/schedules/:id/runs?limit=1..500 (50) → 200 {runs: Run[]}     newest slot first
 * Schedule = {id, project, agent, name, file, valid, errors: [{path, expected, found}], enabled, prompt,
 *   schedule: {kind:"cron", cron, timezone} | {kind:"period", period} | {kind:"once"} | null, start_at, end_at,
 *   next_fire_at, deliver_to, delivers_to, session_id, delivery_problem,
 *   approval: {requested, ceiling, ceiling_from: "operator_grant"|"route_schedule_approval_mode"|"bound_session"|
 *   "route_approval_mode", effective, grant?: "active"|"stale"} | null, max_duration_ms, running, queued, last_run: Run | null}
 *   (times ISO 8601; fields of an invalid file are null). Run = {id, schedule_name, project_id, agent_id, slot,
 *   kind: "slot"|"manual", status: "queued"|"running"|"completed"|"failed"|"missed", session_id, started_at,
 *   ended_at, duration_ms, error, created_at} (times epoch ms).
 * Errors: 404 schedule_not_found, 409 schedule_invalid | already_queued, 500 schedule_write_failed, 503 scheduler_unavailable.
 */
import { Router, type Request, type Response } from 'express';
import * as z from 'zod';
import { APPROVAL_MODES } from '../../config/schema';
import { ApiError } from '../errors';
import { ADMIN_ACTOR, type AdminRuntime, type ScheduleAdmin } from '../types';
import { lazySchema, parseInput, queryInt } from '../validate';

const idParam = lazySchema(() =>
  z.strictObject({ id: z.string().min(1).max(400) }),
);
const enableBody = lazySchema(() =>
  z.strictObject({ approval_mode: z.enum(APPROVAL_MODES, { error: `expected one of ${APPROVAL_MODES.join('|')}` }).optional() }),
);
const runsQuery = lazySchema(() =>
  z.strictObject({ limit: queryInt(1, 500).default(50) }),
);

const notFound = (id: string) => new ApiError(404, 'schedule_not_found', `no schedule ${JSON.stringify(id)}`);

export function scheduleRoutes(runtime: AdminRuntime): Router {
  const r = Router();
  const admin = (): ScheduleAdmin => {
    const s = runtime.schedules;
    if (!s) throw new ApiError(503, 'scheduler_unavailable', 'the scheduler is not running (see the gateway log)');
    return s;
  };
  const viewOr404 = async (id: string) => {
    const v = await admin().get(id);
    if (!v) throw notFound(id);
    return v;
  };
  const edit = (enabled: boolean) => async (req: Request, res: Response) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const body = enabled ? parseInput(enableBody, req.body ?? {}, 'body') : parseInput(z.strictObject({}), req.body ?? {}, 'body');
    const out = await admin().setEnabled(id, enabled, { actor: ADMIN_ACTOR, ...('approval_mode' in body && body.approval_mode ? { approvalMode: body.approval_mode } : {}) });
    if (!out.ok) {
      if (out.code === 'not_found') throw notFound(id);
      if (out.code === 'invalid') throw new ApiError(409, 'schedule_invalid', out.message);
      throw new ApiError(500, 'schedule_write_failed', out.message);
    }
    res.json({ schedule: await viewOr404(id) });
  };

  r.get('/schedules', async (_req, res) => {
    res.json({ schedules: await admin().list() });
  });

  r.get('/schedules/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    res.json({ schedule: await viewOr404(id) });
  });

  r.post('/schedules/:id/enable', edit(true));
  r.post('/schedules/:id/disable', edit(false));

  r.post('/schedules/:id/run', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const out = await admin().runNow(id);
    if (!out.ok) {
      if (out.code === 'not_found') throw notFound(id);
      throw new ApiError(409, out.code === 'invalid' ? 'schedule_invalid' : 'already_queued', out.message);
    }
    res.status(202).json({ run: out.run });
  });

  r.get('/schedules/:id/runs', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const q = parseInput(runsQuery, req.query, 'query');
    const runs = await admin().runs(id, q.limit);
    if (!runs) throw notFound(id);
    res.json({ runs });
  });

  return r;
}
