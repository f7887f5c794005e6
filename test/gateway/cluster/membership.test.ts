/** Membership over the real store: claims, the trusted cache and its limits, takeovers and what they report. */
import pino from 'pino';
import type { Clock } from '../../../src/adapters/contract/clock';
import { Membership } from '../../../src/gateway/cluster/membership';
import type { Takeover } from '../../../src/gateway/store/types';
import { openTestStore, type TestStore } from '../store/helpers';

const LEASE = 9000;

describe('Membership', () => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore();
  });
  afterEach(() => t.cleanup());

  function member(id: string) {
    const clock: Clock = { now: () => t.clock.t, setTimeout: () => ({}), clearTimeout: () => undefined };
    const acquired: string[] = [];
    const takeovers: Takeover[] = [];
    const m = new Membership({
      store: t.store, id, leaseMs: LEASE, clock, logger: pino({ level: 'silent' }), url: () => null,
      onAcquired: async (k) => void acquired.push(k),
      onTakeover: async (x) => void takeovers.push(x),
    });
    return { m, acquired, takeovers, tick: () => (m as unknown as { tick(): Promise<void> }).tick() };
  }

  it('gives each conversation one owner and tells the new owner when it came from elsewhere', async () => {
    const a = member('a');
    const b = member('b');
    await a.m.join();
    await b.m.join();
    expect(await a.m.claim('k')).toBe('a');
    expect(await b.m.claim('k')).toBe('a');
    expect(a.acquired).toEqual(['k']);
    expect(await b.m.liveOwner('k')).toBe('a');
    expect(await a.m.liveOwner('k')).toBeUndefined();
  });

  it('takes over a silent peer: its conversations, and the instance is reported once', async () => {
    const a = member('a');
    const b = member('b');
    await a.m.join();
    await b.m.join();
    await a.m.claim('k1');
    await a.m.claim('k2');
    t.clock.t += LEASE + 1;
    await b.tick();
    expect(b.takeovers).toEqual([{ instances: ['a'], keys: ['k1', 'k2'] }]);
    expect(await b.m.claim('k1')).toBe('b');
    // Already b's by the takeover: nothing stale to drop, the survivor just finalised it.
    expect(b.acquired).toEqual([]);
    await b.tick();
    expect(b.takeovers).toHaveLength(1);
  });

  it('stops trusting its own claims once it learns peers declared it dead', async () => {
    const a = member('a');
    const b = member('b');
    await a.m.join();
    await b.m.join();
    expect(await a.m.claim('k')).toBe('a');
    t.clock.t += LEASE + 1;
    await b.tick();
    // a comes back: its renewal finds its row gone, and its next claim asks the table.
    await a.tick();
    expect(await a.m.claim('k')).toBe('b');
  });

  it('hands a start the conversations its id left behind in an earlier process', async () => {
    const first = member('a');
    await first.m.join();
    await first.m.claim('k');
    const again = member('a');
    expect((await again.m.join()).keys).toEqual(['k']);
  });
});
