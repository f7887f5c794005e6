/**
 * Sessions: `GET /api/sessions` (filters validated; newest activity first), `GET /api/sessions/:id`
 * (the row and its conversation bindings), `PATCH /api/sessions/:id {approval_mode}` (the operator's way to
 * widen a session's approvals) and `GET /api/sessions/:id/messages` (the transcript read from
 * the session's trace files under `<home>/<project>/agents/<agent>/traces`, every file's records in
 * order, each file starting with its `session_meta`, plus the session's approvals with who decided them).
 * For the dashboard: `POST /api/sessions/:id/abort` stops its running Task (409 `not_running` otherwise) and
 * `GET /api/sessions/:id/events` streams what the session writes to its trace from then on (SSE `messages`
 * events, heartbeat comments). Unknown session: 404 `session_not_found`.
 */
import { Router } from 'express';
import * as z from 'zod';
import type { OmniMessage } from '../../../core/omnimessage/types';
import { isSessionId, readAllTraces, tracesDir } from '../../../core/trace';
import { PLATFORMS } from '../../config';
import { APPROVAL_MODES } from '../../config/schema';
import type { GatewayStore, SessionRow } from '../../store';
import { ApiError } from '../errors';
import type { AdminRuntime } from '../types';
import { lazySchema, parseInput, queryInt, queryText, queryTime } from '../validate';

/** SSE comment lines keep proxies from closing an idle stream. */
export const SSE_HEARTBEAT_MS = 20_000;

const listQuery = lazySchema(() =>
  z.strictObject({
    platform: z.enum(PLATFORMS, { error: `expected one of ${PLATFORMS.join('|')}` }).optional(),
    route: queryText('a route name').optional(),
    project: queryText('a project id').optional(),
    agent: queryText('an agent id').optional(),
    status: z.enum(['idle', 'running', 'compacting'], { error: 'expected one of idle|running|compacting' }).optional(),
    since: queryTime().optional(),
    until: queryTime().optional(),
    subagents: z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
    q: queryText('text to look for in the title, session id or conversation').optional(),
    problem: z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
    limit: queryInt(1, 500).default(50),
    offset: queryInt(0, 1_000_000).default(0),
  }),
);

const messagesQuery = lazySchema(() =>
  z.strictObject({
    limit: queryInt(1, 10_000).default(2000),
    offset: queryInt(0, 100_000_000).default(0),
  }),
);

const idParam = lazySchema(() =>
  z.strictObject({ id: z.string().min(1).max(200) }),
);

const patchBody = lazySchema(() =>
  z.strictObject({
    approval_mode: z.enum(APPROVAL_MODES, { error: `expected one of ${APPROVAL_MODES.join('|')}` }),
  }),
);

async function sessionOr404(store: GatewayStore, id: string): Promise<SessionRow> {
  const row = await store.getSession(id);
  if (!row) throw new ApiError(404, 'session_not_found', `no session ${JSON.stringify(id)}`);
  return row;
}

export function sessionRoutes(store: GatewayStore, home: string, runtime: AdminRuntime, heartbeatMs = SSE_HEARTBEAT_MS): Router {
  const r = Router();

  r.get('/sessions', async (req, res) => {
    const q = parseInput(listQuery, req.query, 'query');
    const sessions = await store.listSessions({
      platform: q.platform,
      route: q.route,
      project_id: q.project,
      agent_id: q.agent,
      status: q.status,
      since: q.since,
      until: q.until,
      include_subagents: q.subagents === 'true',
      text: q.q,
      with_problem: q.problem === 'true',
      limit: q.limit,
      offset: q.offset,
    });
    // Which gateway instance runs each conversation (on a shared PostgreSQL index; null when none holds it).
    const owners = await store.conversationOwners(sessions.flatMap((x) => (x.binding_key ? [x.binding_key] : [])));
    const rows = sessions.map((x) => ({ ...x, owner_instance: (x.binding_key && owners.get(x.binding_key)) || null }));
    res.json({ sessions: rows, limit: q.limit, offset: q.offset });
  });

  r.get('/sessions/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const session = await sessionOr404(store, id);
    res.json({ session, bindings: await store.bindingsOf(id) });
  });

  // The operator may set any mode, laxer ones included (in chat only approvers may widen it).
  r.patch('/sessions/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const body = parseInput(patchBody, req.body ?? {}, 'body');
    await sessionOr404(store, id);
    await store.updateSession(id, { approval_mode: body.approval_mode });
    res.json({ session: await store.getSession(id) });
  });

  r.get('/sessions/:id/messages', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    const q = parseInput(messagesQuery, req.query, 'query');
    const row = await sessionOr404(store, id);
    // A row whose id is not a trace session id (never written by the engine) has no files to read.
    const read = isSessionId(row.session_id) ? await readAllTraces(tracesDir(home, row.project_id, row.agent_id), row.session_id) : { files: [], errors: [] };
    const all: OmniMessage[] = [];
    for (const f of read.files) all.push(f.meta, ...f.messages);
    const approvals = await store.listApprovals({ session_id: row.session_id, limit: 1000 });
    res.json({
      session_id: row.session_id,
      total: all.length,
      offset: q.offset,
      messages: all.slice(q.offset, q.offset + q.limit),
      files: read.files.map((f) => ({ index: f.index, records: f.messages.length + 1, skipped: f.skipped, truncated_tail: f.truncatedTail })),
      problems: read.errors.map((e) => ({ code: e.code, message: e.message })),
      approvals,
    });
  });

  r.post('/sessions/:id/abort', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    await sessionOr404(store, id);
    if ((await runtime.stopSession(id)) === 'not_running') throw new ApiError(409, 'not_running', `session ${JSON.stringify(id)} has no running Task`);
    res.json({ session_id: id, stopped: true });
  });

  r.get('/sessions/:id/events', async (req, res) => {
    const { id } = parseInput(idParam, req.params, 'path');
    await sessionOr404(store, id);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': connected\n\n');
    // res.json's redaction does not apply to a stream; the app hands every batch through the redactor.
    const unsubscribe = runtime.watchSession(id, (msgs) => res.write(`event: messages\ndata: ${JSON.stringify(res.locals.redact ? res.locals.redact(msgs) : msgs)}\n\n`));
    const beat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
    beat.unref();
    req.on('close', () => {
      clearInterval(beat);
      unsubscribe();
    });
  });

  return r;
}
