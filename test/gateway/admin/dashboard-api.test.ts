/**
 * The admin endpoints the dashboard pages use beyond the original API: /api/overview (adapters, running
 * Tasks, rate budgets, platform problems, dead letters), /api/deliveries (filters, order, paging) and the
 * resend of a dead letter, stopping a session's Task, the live transcript over SSE, the sessions' text and
 * problem filters, approvals beside the transcript and paged, and the usage report as CSV.
 */
import { startHarness, type Harness } from './helpers';
import { csvField } from '../../../src/gateway/admin/usage-csv';
import type { OmniMessage } from '../../../src/core/omnimessage/types';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

async function delivery(state: 'sent' | 'failed', session_id = 's1', task_id = 't1') {
  const d = await h.store.createDelivery({ platform: 'web', chat: 'web:c1', purpose: 'final', session_id, task_id, state: 'pending' });
  if (state === 'sent') await h.store.markDeliverySent(d.id, `m${d.id}`);
  else await h.store.markDeliveryAttemptFailed(d.id, 'chat not found', true);
  return d.id;
}

describe('GET /api/overview', () => {
  it('gathers adapters, running Tasks, budgets in use, platform problems and dead letters', async () => {
    await h.store.createSession({ session_id: 's1', project_id: 'p', agent_id: 'a', platform: 'telegram', title: 'Blocked chat' });
    await h.store.updateSession('s1', { platform_problem: 'the bot was blocked by the user' });
    await h.store.createSession({ session_id: 's2', project_id: 'p', agent_id: 'a', platform: 'telegram' });
    const dead = await delivery('failed');
    await delivery('sent');
    h.runtime.healthState = { accepting: true, adapters: [{ name: 'web', state: 'connected' }, { name: 'slack', state: 'disabled', detail: 'no credentials' }] };
    h.runtime.tasks = [{ task_id: 't9', session_id: 's2', platform: 'telegram', route: 'default', requester: 'telegram:42', started_at: 1, queued: 0 }];
    h.runtime.budgets = [{ key: 'telegram:bot:chat:42', tokens: 1.5, capacity: 3, paused_until: null }];
    const r = await h.call('/api/overview');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      accepting: true,
      adapters: h.runtime.healthState.adapters,
      tasks: h.runtime.tasks,
      rate_budgets: h.runtime.budgets,
      platform_problems: [{ session_id: 's1', platform: 'telegram', title: 'Blocked chat', problem: 'the bot was blocked by the user' }],
    });
    expect(r.body.dead_letters.map((d: any) => [d.id, d.state, d.last_error])).toEqual([[dead, 'failed', 'chat not found']]);
  });

  it('takes no query', async () => {
    const r = await h.call('/api/overview?x=1');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('query: unknown field "x"');
  });
});

describe('GET /api/deliveries', () => {
  it('filters by state and task, newest first or in order, and pages', async () => {
    const a = await delivery('sent', 's1', 't1');
    const b = await delivery('failed', 's1', 't1');
    const c = await delivery('sent', 's1', 't2');
    expect((await h.call('/api/deliveries')).body.deliveries.map((d: any) => d.id)).toEqual([c, b, a]);
    expect((await h.call('/api/deliveries?task_id=t1&order=asc')).body.deliveries.map((d: any) => d.id)).toEqual([a, b]);
    expect((await h.call('/api/deliveries?state=failed')).body.deliveries.map((d: any) => d.id)).toEqual([b]);
    const page2 = await h.call('/api/deliveries?limit=2&offset=2');
    expect(page2.body).toMatchObject({ limit: 2, offset: 2 });
    expect(page2.body.deliveries.map((d: any) => d.id)).toEqual([a]);
  });

  it('names bad query fields', async () => {
    const r = await h.call('/api/deliveries?state=lost&limit=0');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('query.state: expected one of pending|sent|failed|finalized|interrupted, found "lost"; query.limit: expected an integer 1-500, found "0"');
  });
});

describe('GET /api/tasks/:id/timeline', () => {
  it('answers one Task\'s messages and steps in order, 404 for a Task the ledger has nothing of, 400 for a bad id', async () => {
    const a = await delivery('sent', 's1', 't1');
    await delivery('sent', 's1', 't2');
    await h.store.addDeliveryEvent({ task_id: 't1', delivery_id: null, part: null, kind: 'task_started', detail: 'asked by telegram:42' });
    await h.store.addDeliveryEvent({ task_id: 't1', delivery_id: a, part: 0, kind: 'post', detail: `message m${a}` });
    const r = await h.call('/api/tasks/t1/timeline');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ task_id: 't1', session_id: 's1' });
    expect(r.body.deliveries.map((d: any) => d.id)).toEqual([a]);
    expect(r.body.events.map((e: any) => [e.kind, e.delivery_id])).toEqual([['task_started', null], ['post', a]]);
    expect((await h.call('/api/tasks/t9/timeline')).body.error.code).toBe('task_not_found');
    const bad = await h.call('/api/tasks/a%20b/timeline');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^path\.id: expected a task id/);
  });
});

describe('POST /api/deliveries/:id/resend', () => {
  it('answers what the runtime did, and maps its refusals', async () => {
    const id = await delivery('failed');
    h.runtime.resend = async (n) => ({ ok: true, delivery: { ...(await h.store.getDelivery(n))!, state: 'sent' } });
    const ok = await h.call(`/api/deliveries/${id}/resend`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(ok.body.delivery).toMatchObject({ id, state: 'sent' });
    for (const [code, status, api] of [['not_found', 404, 'delivery_not_found'], ['not_failed', 409, 'not_a_dead_letter'], ['platform_not_running', 503, 'platform_not_running'], ['send_failed', 502, 'send_failed']] as const) {
      h.runtime.resend = async () => ({ ok: false, code, message: `because ${code}` });
      const r = await h.call(`/api/deliveries/${id}/resend`, { method: 'POST' });
      expect([r.status, r.body.error]).toEqual([status, { code: api, message: `because ${code}` }]);
    }
  });

  it('refuses an id that is not a positive integer', async () => {
    const r = await h.call('/api/deliveries/0/resend', { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('path.id: expected a delivery id (a positive integer), found "0"');
  });
});

describe('sessions for the dashboard', () => {
  beforeEach(async () => {
    await h.store.createSession({ session_id: 's1', project_id: 'p', agent_id: 'a', platform: 'telegram', binding_key: 'telegram:4242:-', title: 'Weekly report' });
    await h.store.createSession({ session_id: 's2', project_id: 'p', agent_id: 'a', platform: 'web', binding_key: 'web:c1', title: 'Playground' });
  });

  it('filters by text (title, id or conversation key, case-insensitive) and by platform problem', async () => {
    const ids = async (q: string) => (await h.call(`/api/sessions${q}`)).body.sessions.map((s: any) => s.session_id);
    expect(await ids('?q=weekly')).toEqual(['s1']);
    expect(await ids('?q=4242')).toEqual(['s1']);
    expect(await ids('?q=web%3Ac1')).toEqual(['s2']);
    expect(await ids('?q=nothing-like-this')).toEqual([]);
    expect(await ids('?problem=true')).toEqual([]);
    await h.store.updateSession('s2', { platform_problem: 'missing permissions' });
    expect(await ids('?problem=true')).toEqual(['s2']);
  });

  it('stops a running Task as the operator; 409 when none runs, 404 for an unknown session', async () => {
    h.runtime.tasks = [{ task_id: 't1', session_id: 's1', platform: 'telegram', route: 'default', requester: 'telegram:42', started_at: 1, queued: 0 }];
    const r = await h.call('/api/sessions/s1/abort', { method: 'POST' });
    expect([r.status, r.body]).toEqual([200, { session_id: 's1', stopped: true }]);
    expect(h.runtime.stopped).toEqual(['s1']);
    const again = await h.call('/api/sessions/s1/abort', { method: 'POST' });
    expect([again.status, again.body.error.code]).toEqual([409, 'not_running']);
    expect((await h.call('/api/sessions/nope/abort', { method: 'POST' })).status).toBe(404);
  });

  it('lists the session approvals with the transcript, and pages approvals', async () => {
    const a = await h.store.createApproval({ session_id: 's1', tool_call_id: 'c1', tool_name: 'exec_command', requester: 'telegram:42', expires_at: Date.now() + 60_000 });
    await h.store.decideApproval(a.id, 'allowed', 'web:admin');
    await h.store.createApproval({ session_id: 's1', tool_call_id: 'c2', tool_name: 'write_file', expires_at: Date.now() + 60_000, created_at: Date.now() + 1 });
    const t = await h.call('/api/sessions/s1/messages');
    expect(t.body.approvals.find((x: any) => x.tool_call_id === 'c1')).toMatchObject({ state: 'allowed', decided_by: 'web:admin' });
    const p1 = await h.call('/api/approvals?limit=1');
    const p2 = await h.call('/api/approvals?limit=1&offset=1');
    expect([p1.body.approvals[0].tool_call_id, p2.body.approvals[0].tool_call_id]).toEqual(['c2', 'c1']);
  });

  it('streams what the session writes to its trace as SSE', async () => {
    const ac = new AbortController();
    const res = await fetch(`${h.listener.url}/api/sessions/s1/events`, { headers: { authorization: `Bearer ${h.token}` }, signal: ac.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const read = async (until: string) => {
      while (!text.includes(until)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await read(': connected');
    const batch: OmniMessage[] = [{ timestamp: '2026-12-01T10:00:00.000Z', type: 'model_msg', payload: { type: 'text', role: 'assistant', text: 'live words' } }];
    h.runtime.feed.publish('s2', [{ timestamp: batch[0].timestamp, type: 'model_msg', payload: { type: 'text', role: 'assistant', text: 'other session' } }]);
    h.runtime.feed.publish('s1', batch);
    await read('live words');
    expect(text).toContain(`event: messages\ndata: ${JSON.stringify(batch)}\n\n`);
    expect(text).not.toContain('other session');
    ac.abort();
    expect((await h.call('/api/sessions/nope/events')).status).toBe(404);
  });
});

describe('GET /api/usage?format=csv', () => {
  it('has the JSON report numbers, one row a group and a total row', async () => {
    await h.store.createSession({ session_id: 's1', project_id: 'p', agent_id: 'a', route: 'default' });
    const ts = Date.parse('2026-11-30T12:00:00');
    await h.store.recordUsage({ ts, project_id: 'p', agent_id: 'a', session_id: 's1', route: 'default', provider: 'openai', model_id: 'gpt', counts: { cache_read: 10, cache_write: 90, output: 20, total: 120 } });
    await h.store.recordUsage({ ts, project_id: 'p', agent_id: 'a', session_id: 's1', route: 'default', provider: 'openai', model_id: 'gpt', counts: { cache_read: 0, cache_write: 30, output: 10, total: 40 } });
    const json = await h.call('/api/usage?group=model');
    const csv = await h.call('/api/usage?group=model&format=csv');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="usage-by-model.csv"');
    expect(csv.text).toBe(['model,requests,failures,cache_read,cache_write,output,total,cost_usd', 'openai/gpt,2,0,10,120,30,160,', 'total,2,0,10,120,30,160,', ''].join('\r\n'));
    expect(json.body.total).toMatchObject({ requests: 2, total: 160, output: 30 });
  });

  it('quotes fields that need it and defuses spreadsheet formulas', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(-5)).toBe('-5');
    expect(csvField(null)).toBe('');
  });
});
