/**
 * The whole gateway flow with no chat platform (issue "Gateway process", Done when): a prompt through the
 * web adapter, an exec_command that the default read-only mode sends for approval, the approval decided via
 * POST /api/approvals/:id, the streamed answer, and the trace, the sessions index and the usage rows agreeing.
 */
import { decodeActionPayload } from '../../../src/adapters/contract/action-payload';
import { turn } from '../../fakes/openai-server';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const call = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ description: `Run ${cmd}`, cmd }) });

describe('gateway flow through the web adapter', () => {
  it('asks for approval, runs the tool once allowed, streams the answer; trace, index and usage agree', async () => {
    h = await startHarness();
    h.model.enqueue(turn({ text: 'Checking.', toolCalls: [call('call_1', 'echo approved-run')], usage: { prompt_tokens: 100, completion_tokens: 20 } }));
    h.model.enqueue(turn({ text: 'It printed approved-run.', usage: { prompt_tokens: 150, completion_tokens: 10 } }));
    await h.say('c1', 'please run echo');

    const pending = await h.waitFor('a pending approval', async () => {
      const r = await h.api('/api/approvals?state=pending');
      return r.body.approvals?.length === 1 ? r.body.approvals[0] : undefined;
    });
    expect(pending).toMatchObject({ tool_name: 'exec_command', requester: 'web:admin', state: 'pending' });
    const card = await h.waitFor('the approval card', () => h.botMessages('c1').find((m) => m.buttons.some((b) => b.label === 'Allow')));
    expect(card.text).toContain('echo approved-run');
    expect(card.buttons.map((b) => b.label)).toEqual(['Allow', 'Deny', 'Allow for this session']);

    const decided = await h.api(`/api/approvals/${pending.id}`, { body: { decision: 'allow' } });
    expect(decided.status).toBe(200);
    const again = await h.api(`/api/approvals/${pending.id}`, { body: { decision: 'deny' } });
    expect(again.status).toBe(409);

    const final = await h.waitFor('the final reply', () => h.botMessages('c1').find((m) => m.final && m.buttons.length === 0 && m.text.includes('It printed approved-run.')));
    expect(final.text).toContain('Checking.');
    expect(final.buttons).toEqual([]);
    const decidedCard = await h.waitFor('the decided card', () => h.botMessages('c1').find((m) => m.id === card.id && m.buttons.length === 0 ? m : undefined));
    expect(decidedCard.text).toMatch(/Allowed/i);

    // The tool really ran: the model got its output back.
    expect(h.model.requests[1].body.messages.find((m: { role: string }) => m.role === 'tool').content).toContain('approved-run');

    // Two turns and, after the reply, the title request: all three are billed (engine.md §8.5).
    const rows = await h.waitFor('three usage rows', async () => {
      const u = await h.gateway.store.listUsage({});
      return u.length === 3 ? u : undefined;
    });
    const titleTokens = rows.map((u) => u.total).filter((t) => t !== 120 && t !== 160);
    expect(titleTokens).toHaveLength(1);
    const sessions = await h.api('/api/sessions');
    expect(sessions.body.sessions).toHaveLength(1);
    const s = sessions.body.sessions[0];
    expect(s).toMatchObject({ platform: 'web', binding_key: 'web:c1', status: 'idle', approval_mode: 'read-only', total: 280 + titleTokens[0] });
    const transcript = await h.api(`/api/sessions/${s.session_id}/messages`);
    const types = transcript.body.messages.map((m: any) => m.type === 'session_meta' ? 'session_meta' : m.payload.type);
    expect(types.filter((t: string) => t === 'token_usage')).toHaveLength(2);
    expect(transcript.body.messages.find((m: any) => m.payload?.type === 'approval_decision').payload).toMatchObject({ decision: 'allow', tool_call_id: 'call_1' });
    const metrics = await h.api('/metrics');
    // Live-reply edits and card posts are platform calls too, counted once each.
    expect(metrics.body).toMatch(/platform_calls_total\{platform="web",method="edit",outcome="ok"\} [1-9]/);
    expect(metrics.body).toMatch(/platform_calls_total\{platform="web",method="post",outcome="ok"\} [1-9]/);
    const usage = await h.gateway.store.listUsage({ session_id: s.session_id });
    expect(usage.map((u) => u.total).sort((a, b) => a - b)).toEqual([titleTokens[0], 120, 160].sort((a, b) => a - b));
  });

  it('denies from the card: the model hears the denial and nothing runs', async () => {
    h = await startHarness();
    h.model.enqueue(turn({ toolCalls: [call('call_1', 'touch /tmp/never-created-by-gateway-test')] }));
    h.model.enqueue(turn({ text: 'Understood, I will not.' }));
    await h.say('c2', 'do it');
    const card = await h.waitFor('card', () => h.botMessages('c2').find((m) => m.buttons.some((b) => b.label === 'Deny')));
    const deny = card.buttons.find((b) => b.label === 'Deny')!;
    await h.web.click('c2', card.id, deny.payload, { id: 'admin', name: 'admin' });
    await h.waitFor('final', () => h.botMessages('c2').find((m) => m.final && m.text.includes('Understood')));
    const tool = h.model.requests[1].body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool.content).toBe('Tool call denied by user.');
  });

  it('refuses a click from someone who is neither the requester nor an approver, and clicks are idempotent', async () => {
    h = await startHarness();
    h.model.enqueue(turn({ toolCalls: [call('call_1', 'echo x')] }));
    h.model.enqueue(turn({ text: 'ran' }));
    await h.say('c3', 'go');
    const card = await h.waitFor('card', () => h.botMessages('c3').find((m) => m.buttons.some((b) => b.label === 'Allow')));
    const allow = card.buttons.find((b) => b.label === 'Allow')!;
    const stranger = await h.web.click('c3', card.id, allow.payload, { id: 'mallory' });
    expect(stranger).toMatchObject({ text: 'This approval is not yours to decide.', alert: true });
    const decoded = decodeActionPayload(allow.payload);
    if (!decoded.ok || decoded.action.kind !== 'approval') throw new Error('bad payload');
    expect((await h.gateway.store.getApproval(decoded.action.approvalId))?.state).toBe('pending');
    await h.web.click('c3', card.id, allow.payload, { id: 'admin' });
    await h.waitFor('final', () => h.botMessages('c3').find((m) => m.final && m.text.includes('ran')));
    expect((await h.gateway.store.getApproval(decoded.action.approvalId))?.state).toBe('allowed');
    expect(h.model.requests.filter((r) => r.body.tools?.length)).toHaveLength(2);
  });

  it('"Allow for this session" lets later calls of that tool through without a card', async () => {
    h = await startHarness();
    h.model.enqueue(turn({ toolCalls: [call('a', 'echo one')] }));
    h.model.enqueue(turn({ toolCalls: [call('b', 'echo two')] }));
    h.model.enqueue(turn({ text: 'both ran' }));
    await h.say('c4', 'go');
    const card = await h.waitFor('card', () => h.botMessages('c4').find((m) => m.buttons.some((b) => b.label === 'Allow for this session')));
    await h.web.click('c4', card.id, card.buttons.find((b) => b.label === 'Allow for this session')!.payload, { id: 'admin' });
    await h.waitFor('final', () => h.botMessages('c4').find((m) => m.final && m.text.includes('both ran')));
    expect(h.botMessages('c4').filter((m) => m.text.includes('exec_command') && m.text.includes('Allow'))).toHaveLength(1);
    expect((await h.api('/api/approvals')).body.approvals).toHaveLength(1);
  });
});
