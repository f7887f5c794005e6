/**
 * `GET /api/overview`'s `instance`: behind the admin token, shaped `{id, owns, peers: [{id, last_seen}]}`
 * from the runtime's health (nothing else it may carry), peers empty when the gateway runs alone, null when
 * the runtime reports no instance; `/readyz` keeps answering without a token, as before.
 */
import { startHarness, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('GET /api/overview instance', () => {
  it('needs the token', async () => {
    h.runtime.healthState = { accepting: true, adapters: [], instance: { id: 'gw-1', owns: 2, peers: [] } };
    const none = await h.call('/api/overview', { auth: false });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(none.text).not.toContain('gw-1');
    expect((await h.call('/api/overview', { auth: 'wrong-token' })).status).toBe(401);
  });

  it('names this instance, the conversations it owns and its live peers with when each was last seen', async () => {
    const peers = [{ id: 'gw-2', last_seen: 1_800_000_000_000 }, { id: 'gw-3', last_seen: 1_800_000_004_000 }];
    // A field the runtime might add later stays out of the API.
    const extra = { id: 'gw-1', owns: 7, peers: peers.map((p) => ({ ...p, url: 'http://10.0.0.2:7370' })), secret: 'x' };
    h.runtime.healthState = { accepting: true, adapters: [], instance: extra as any };
    const r = await h.call('/api/overview');
    expect(r.status).toBe(200);
    expect(r.body.instance).toEqual({ id: 'gw-1', owns: 7, peers });
  });

  it('says it runs alone with no peers, and null when the runtime has no instance to report', async () => {
    h.runtime.healthState = { accepting: true, adapters: [], instance: { id: 'solo', owns: 0, peers: [] } };
    expect((await h.call('/api/overview')).body.instance).toEqual({ id: 'solo', owns: 0, peers: [] });
    h.runtime.healthState = { accepting: true, adapters: [] };
    expect((await h.call('/api/overview')).body.instance).toBeNull();
  });

  it('leaves /readyz open and its instance as the runtime reports it', async () => {
    h.runtime.healthState = { accepting: true, adapters: [], instance: { id: 'gw-1', owns: 1, peers: [{ id: 'gw-2', last_seen: 5 }] } };
    const r = await h.call('/readyz', { auth: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ready: true, accepting: true, adapters: [], instance: { id: 'gw-1', owns: 1, peers: [{ id: 'gw-2', last_seen: 5 }] } });
  });
});
