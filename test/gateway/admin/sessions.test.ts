/**
 * /api/sessions over real HTTP and a real store: filters (platform, route, status, time window, paging)
 * validated with errors naming the field; one session with its bindings; the transcript read from
 * hand-written trace files (two context files, a torn last line) and 404 `session_not_found`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import { traceFilePath, tracesDir } from '../../../src/core/trace';
import { startHarness, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => {
  b.setMessageClock();
  return h.close();
});

const T0 = 1_800_000_000_000;

async function seed() {
  const s = h.store;
  await s.createSession({ session_id: 's-tg-1', project_id: 'p', agent_id: 'a', platform: 'telegram', route: 'default', created_at: T0 });
  await s.createSession({ session_id: 's-tg-2', project_id: 'p', agent_id: 'a', platform: 'telegram', route: 'ops', created_at: T0 + 1000 });
  await s.createSession({ session_id: 's-sl-1', project_id: 'p', agent_id: 'a', platform: 'slack', route: 'ops', created_at: T0 + 2000, binding_key: 'slack:T1:C1:1.2' });
  await s.createSession({ session_id: 's-child', project_id: 'p', agent_id: 'a', platform: 'slack', parent_session_id: 's-sl-1', created_at: T0 + 3000 });
  await s.updateSession('s-tg-2', { status: 'running' });
  await s.bind('slack:T1:C1:1.2', 's-sl-1');
}
const ids = (body: any) => body.sessions.map((r: any) => r.session_id);

describe('GET /api/sessions', () => {
  it('lists top-level sessions, newest activity first, with the paging it used', async () => {
    await seed();
    const r = await h.call('/api/sessions');
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(['s-sl-1', 's-tg-2', 's-tg-1']);
    expect(r.body).toMatchObject({ limit: 50, offset: 0 });
    expect(r.body.sessions[0]).toMatchObject({ platform: 'slack', route: 'ops', project_id: 'p', agent_id: 'a', status: 'idle' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('filters by platform, route, status, time window and includes subagents on request', async () => {
    await seed();
    expect(ids((await h.call('/api/sessions?platform=telegram')).body)).toEqual(['s-tg-2', 's-tg-1']);
    expect(ids((await h.call('/api/sessions?route=ops')).body)).toEqual(['s-sl-1', 's-tg-2']);
    expect(ids((await h.call('/api/sessions?status=running')).body)).toEqual(['s-tg-2']);
    expect(ids((await h.call(`/api/sessions?since=${T0 + 1000}&until=${T0 + 2000}`)).body)).toEqual(['s-tg-2']);
    const iso = new Date(T0 + 1500).toISOString();
    expect(ids((await h.call(`/api/sessions?since=${encodeURIComponent(iso)}`)).body)).toEqual(['s-sl-1']);
    expect(ids((await h.call('/api/sessions?platform=slack&subagents=true')).body)).toEqual(['s-child', 's-sl-1']);
    expect(ids((await h.call('/api/sessions?limit=1&offset=1')).body)).toEqual(['s-tg-2']);
  });

  it.each([
    ['limit=0', 'query.limit: expected an integer 1-500, found "0"'],
    ['limit=abc', 'query.limit: expected an integer 1-500, found "abc"'],
    ['platform=irc', 'query.platform: expected one of telegram|slack|discord|web, found "irc"'],
    ['status=busy', 'query.status: expected one of idle|running|compacting, found "busy"'],
    ['since=yesterday', 'query.since: expected epoch milliseconds or an ISO 8601 date/time, found "yesterday"'],
    ['until=2026-02-31T10:00:00Z', 'query.until: expected epoch milliseconds or an ISO 8601 date/time, found "2026-02-31T10:00:00Z"'],
    ['limit=1&limit=2', 'query.limit: expected an integer 1-500, found a list'],
    ['colour=red', 'query: unknown field "colour"'],
  ])('answers ?%s with 400 naming the field', async (qs, message) => {
    const r = await h.call(`/api/sessions?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: 'bad_request', message } });
  });
});

describe('GET /api/sessions/:id', () => {
  it('returns the row and its bindings, or 404 session_not_found', async () => {
    await seed();
    const r = await h.call('/api/sessions/s-sl-1');
    expect(r.status).toBe(200);
    expect(r.body.session).toMatchObject({ session_id: 's-sl-1', binding_key: 'slack:T1:C1:1.2' });
    expect(r.body.bindings).toEqual(['slack:T1:C1:1.2']);
    const missing = await h.call('/api/sessions/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'session_not_found', message: 'no session "nope"' } });
  });
});

describe('GET /api/sessions/:id/messages', () => {
  const SID = 'session-2027-03-01-09-00-00-abcdef01';
  const meta = () => b.sessionMeta({ session_id: SID, provider: 'openai', model_id: 'm', model_context_window: 128000, system_prompt: 'sys', agent_state: '/s', workspace: '/w' });

  function writeTraces() {
    let t = Date.parse('2027-03-01T09:00:00.000Z');
    b.setMessageClock(() => new Date((t += 1000)));
    const dir = tracesDir(h.home, 'proj', 'agentA');
    const line = (m: unknown) => `${JSON.stringify(m)}\n`;
    const first = [meta(), b.userText('hello'), b.requestBegin(), b.assistantText('hi there'), b.requestEnd('completed')];
    const second = [meta(), b.userText('again'), b.toolCall({ name: 'exec_command', arguments: '{"cmd":"ls"}', tool_call_id: 'c1' })];
    mkdirSync(join(dir, '2027-03-01'), { recursive: true });
    writeFileSync(traceFilePath(dir, SID, 1), first.map(line).join(''));
    // The second file ends in a torn line, as after a crash mid-write.
    writeFileSync(traceFilePath(dir, SID, 2), second.map(line).join('') + '{"type":"model","pay');
    return { first, second };
  }

  it('reads every trace file of the session in order, each starting with its session_meta', async () => {
    const { first, second } = writeTraces();
    await h.store.createSession({ session_id: SID, project_id: 'proj', agent_id: 'agentA' });
    const r = await h.call(`/api/sessions/${SID}/messages`);
    expect(r.status).toBe(200);
    expect(r.body.session_id).toBe(SID);
    expect(r.body.total).toBe(8);
    expect(r.body.messages).toEqual(JSON.parse(JSON.stringify([...first, ...second])));
    expect(r.body.files).toEqual([
      { index: 1, records: 5, skipped: 0, truncated_tail: false },
      { index: 2, records: 3, skipped: 0, truncated_tail: true },
    ]);
    expect(r.body.problems).toEqual([]);

    const page = await h.call(`/api/sessions/${SID}/messages?offset=5&limit=2`);
    expect(page.body.total).toBe(8);
    expect(page.body.messages.map((m: any) => (m.type === 'session_meta' ? m.type : m.payload.type))).toEqual(['session_meta', 'text']);
  });

  it('gives an empty transcript for a session without trace files', async () => {
    await h.store.createSession({ session_id: SID, project_id: 'proj', agent_id: 'agentA' });
    const r = await h.call(`/api/sessions/${SID}/messages`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 0, messages: [], files: [], problems: [] });
  });

  it('answers an unknown session with 404 and a bad paging value with 400', async () => {
    const r = await h.call(`/api/sessions/${SID}/messages`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('session_not_found');
    await h.store.createSession({ session_id: SID, project_id: 'proj', agent_id: 'agentA' });
    const bad = await h.call(`/api/sessions/${SID}/messages?limit=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^query\.limit: /);
  });
});
