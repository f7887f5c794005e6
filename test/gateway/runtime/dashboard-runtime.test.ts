/**
 * What the runtime does for the dashboard, in-process with the web adapter and the fake model: the
 * overview lists a running Task and the operator stops it through the API (the session's live feed carries
 * the abort as the trace records it); a dead letter is resent into its thread and becomes sent, and what
 * cannot be resent says why.
 */
import { hang, turn } from '../../fakes/openai-server';
import { startHarness, TOKEN, type Harness } from './harness';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('dashboard runtime', () => {
  it('lists a running Task, stops it as the operator, and the live feed carries the abort', async () => {
    h = await startHarness();
    h.model.enqueue(hang());
    await h.say('run1', 'take your time');
    const task = await h.waitFor('a running task', async () => (await h.api('/api/overview')).body.tasks?.[0]);
    expect(task).toMatchObject({ platform: 'web', route: 'default', requester: 'web:admin', queued: 0 });

    const ac = new AbortController();
    const res = await fetch(`${h.gateway.url}/api/sessions/${task.session_id}/events`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    const read = async (until: RegExp) => {
      while (!until.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await read(/: connected/);

    const stopped = await h.api(`/api/sessions/${task.session_id}/abort`, { method: 'POST' });
    expect(stopped).toEqual({ status: 200, body: { session_id: task.session_id, stopped: true } });
    await read(/"type":"abort"/);
    expect(text).toContain('aborted by the operator');
    ac.abort();
    expect((await h.api('/api/overview')).body.tasks).toEqual([]);
    expect((await h.api(`/api/sessions/${task.session_id}/abort`, { method: 'POST' })).status).toBe(409);
  });

  it('resends a dead letter into its thread; a delivered one or one with no text is refused', async () => {
    h = await startHarness();
    h.model.enqueue(turn({ text: 'first words' }));
    await h.say('dl', 'hello');
    await h.waitFor('a reply', () => h.botMessages('dl').find((m) => m.final && m.text.includes('first words')));
    const store = h.gateway.store;
    const dead = await store.createDelivery({ platform: 'web', chat: 'web:dl', purpose: 'final', state: 'pending' });
    await store.setDeliveryShown(dead.id, 'the reply that never arrived');
    await store.markDeliveryAttemptFailed(dead.id, 'chat not found', true);

    const r = await h.api(`/api/deliveries/${dead.id}/resend`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.delivery).toMatchObject({ id: dead.id, state: 'sent', platform_message_id: expect.any(String) });
    const posted = h.botMessages('dl').find((m) => m.id === r.body.delivery.platform_message_id);
    expect(posted?.text).toBe('the reply that never arrived');

    const again = await h.api(`/api/deliveries/${dead.id}/resend`, { method: 'POST' });
    expect([again.status, again.body.error.code]).toEqual([409, 'not_a_dead_letter']);
    const blank = await store.createDelivery({ platform: 'web', chat: 'web:dl', purpose: 'final', state: 'pending' });
    await store.markDeliveryAttemptFailed(blank.id, 'chat not found', true);
    expect((await h.api(`/api/deliveries/${blank.id}/resend`, { method: 'POST' })).body.error.code).toBe('nothing_to_send');
    expect((await h.api('/api/deliveries/999999/resend', { method: 'POST' })).status).toBe(404);
  });
});
