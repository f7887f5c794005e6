/** Joining a cluster: what a start recovers (its own old conversations, dead peers', replies cut off where nobody owns the chat) and what it leaves to live peers. */
import pino from 'pino';
import type { Clock } from '../../../src/adapters/contract/clock';
import { createCluster } from '../../../src/gateway/cluster';
import type { GatewayConfig } from '../../../src/gateway/config';
import { openTestStore, type TestStore } from '../store/helpers';

describe('cluster join', () => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore();
  });
  afterEach(() => t.cleanup());

  const clock: Clock = { now: () => t.clock.t, setTimeout: () => ({}), clearTimeout: () => undefined };
  const instance = (id: string) =>
    createCluster({
      // join() reads and writes only the store; the mailbox connects at start().
      config: { database_url: 'postgres://u:p@127.0.0.1:1/db', cluster: { instance_id: id, lease_ms: 10_000 } } as GatewayConfig,
      store: t.store, clock, logger: pino({ level: 'silent' }), url: () => null,
      adapterFor: () => undefined, handlerFor: () => ({ onMessage: async () => undefined, onAction: async () => undefined }),
      held: () => 0, forget: async () => undefined, recover: async () => undefined, stopAll: async () => undefined, requests: {},
    });

  it('recovers a cut-off reply in a chat nobody owns, but not one in a live peer\'s chat', async () => {
    const peer = instance('peer');
    await peer.join();
    await t.store.claimConversation('telegram:2:-', 'peer', t.clock.t - 10_000);
    await t.store.createDelivery({ platform: 'telegram', chat: 'telegram:1:-', purpose: 'live', state: 'sent', platform_message_id: '5' });
    await t.store.createDelivery({ platform: 'telegram', chat: 'telegram:2:-', purpose: 'live', state: 'sent', platform_message_id: '6' });
    const me = instance('me');
    expect(await me.join()).toEqual({ instances: ['me'], keys: ['telegram:1:-'] });
    expect(await t.store.conversationOwners(['telegram:1:-', 'telegram:2:-'])).toEqual(new Map([['telegram:1:-', 'me'], ['telegram:2:-', 'peer']]));
  });
});
