/**
 * /api/approvals: listing by state and session; deciding through the runtime with the admin as actor;
 * the runtime's refusals mapped to 404 approval_not_found / 409 already_decided / 409 approval_expired;
 * bad ids and bodies answered 400 naming the field (and never reaching the runtime).
 */
import { startHarness, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  await h.store.createSession({ session_id: 's1', project_id: 'p', agent_id: 'a' });
  await h.store.createSession({ session_id: 's2', project_id: 'p', agent_id: 'a' });
});
afterEach(() => h.close());

const newApproval = (session_id: string, tool_call_id: string, expires_at = Date.now() + 3_600_000) =>
  h.store.createApproval({ session_id, tool_call_id, tool_name: 'exec_command', requester: 'telegram:42', expires_at });

describe('GET /api/approvals', () => {
  it('lists pending approvals, filtered by state and session', async () => {
    const a = await newApproval('s1', 'c1');
    const b = await newApproval('s2', 'c2');
    await h.store.decideApproval(b.id, 'denied', 'telegram:42');
    const pending = await h.call('/api/approvals?state=pending');
    expect(pending.status).toBe(200);
    expect(pending.body.approvals.map((r: any) => r.id)).toEqual([a.id]);
    expect(pending.body.approvals[0]).toMatchObject({ session_id: 's1', tool_call_id: 'c1', tool_name: 'exec_command', state: 'pending' });
    const ofS2 = await h.call('/api/approvals?session_id=s2');
    expect(ofS2.body.approvals.map((r: any) => [r.id, r.state])).toEqual([[b.id, 'denied']]);
  });

  it('refuses an unknown state', async () => {
    const r = await h.call('/api/approvals?state=open');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('query.state: expected one of pending|allowed|denied|expired|cancelled, found "open"');
  });
});

describe('POST /api/approvals/:id', () => {
  it('decides through the runtime as the admin and returns the new state', async () => {
    const a = await newApproval('s1', 'c1');
    const r = await h.call(`/api/approvals/${a.id}`, { method: 'POST', json: { decision: 'allow' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: a.id, state: 'allowed' });
    expect(h.runtime.decisions).toEqual([{ id: a.id, decision: 'allow', actor: 'web:admin' }]);
    expect((await h.store.getApproval(a.id))?.decided_by).toBe('web:admin');
  });

  it('answers a second decision with 409 already_decided', async () => {
    const a = await newApproval('s1', 'c1');
    expect((await h.call(`/api/approvals/${a.id}`, { method: 'POST', json: { decision: 'deny' } })).body.state).toBe('denied');
    const again = await h.call(`/api/approvals/${a.id}`, { method: 'POST', json: { decision: 'allow' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 'already_decided', message: `approval ${a.id} is already denied` } });
  });

  it('answers an expired approval with 409 approval_expired', async () => {
    const a = await newApproval('s1', 'c1', 1000);
    await h.store.expireApprovals(2000);
    const r = await h.call(`/api/approvals/${a.id}`, { method: 'POST', json: { decision: 'allow' } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('approval_expired');
  });

  it('answers an unknown id with 404 approval_not_found', async () => {
    const r = await h.call('/api/approvals/abcdefghij', { method: 'POST', json: { decision: 'allow' } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { code: 'approval_not_found', message: 'no approval abcdefghij' } });
  });

  it.each([
    [{ decision: 'maybe' }, 'body.decision: expected "allow" or "deny", found "maybe"'],
    [{}, 'body.decision: expected "allow" or "deny", found nothing'],
    [{ decision: 'allow', extra: 1 }, 'body: unknown field "extra"'],
    [['allow'], 'body: expected a JSON object {"decision": "allow"|"deny"}, found a list'],
  ])('answers the body %j with 400 naming the field, without asking the runtime', async (json, message) => {
    const a = await newApproval('s1', 'c1');
    const r = await h.call(`/api/approvals/${a.id}`, { method: 'POST', json });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: 'bad_request', message } });
    expect(h.runtime.decisions).toEqual([]);
  });

  it('answers a malformed id with 400 naming the path parameter', async () => {
    const r = await h.call('/api/approvals/NOT-AN-ID', { method: 'POST', json: { decision: 'allow' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('path.id: expected an approval id (10 characters a-z 2-7), found "NOT-AN-ID"');
  });
});
