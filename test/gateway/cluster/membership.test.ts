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

  function member(id: string, o: { recovery?: Promise<void> } = {}) {
    const clock: Clock = { now: () => t.clock.t, setTimeout: () => ({}), clearTimeout: () => undefined };
    const acquired: string[] = [];
    const takeovers: Takeover[] = [];
    const declaredDead: number[] = [];
    const m = new Membership({
      store: t.store, id, leaseMs: LEASE, clock, logger: pino({ level: 'silent' }), url: () => null,
      onAcquired: async (k) => void acquired.push(k),
      onTakeover: async (x) => {
        takeovers.push(x);
        await o.recovery;
      },
      onDeclaredDead: async () => void declaredDead.push(t.clock.t),
    });
    return { m, acquired, takeovers, declaredDead, tick: () => (m as unknown as { tick(): Promise<void> }).tick() };
  }

  /** The members, each joined in turn. */
  async function joined<T extends { m: Membership }>(...members: T[]): Promise<T[]> {
    for (const x of members) await x.m.join();
    return members;
  }

  it('gives each conversation one owner and tells the new owner when it came from elsewhere', async () => {
    const [a, b] = await joined(member('a'), member('b'));
    expect(await a.m.claim('k')).toBe('a');
    expect(await b.m.claim('k')).toBe('a');
    expect(a.acquired).toEqual(['k']);
    expect(await b.m.liveOwner('k')).toBe('a');
    expect(await a.m.liveOwner('k')).toBeUndefined();
  });

  it('takes over a silent peer: its conversations, and the instance is reported once', async () => {
    const [a, b] = await joined(member('a'), member('b'));
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
    const [a, b] = await joined(member('a'), member('b'));
    expect(await a.m.claim('k')).toBe('a');
    t.clock.t += LEASE + 1;
    await b.tick();
    // a comes back: its renewal finds its row gone, stops what it ran, and its next claim asks the table.
    expect(a.declaredDead).toEqual([]);
    await a.tick();
    expect(a.declaredDead).toHaveLength(1);
    expect(await a.m.claim('k')).toBe('b');
  });

  it('keeps its heartbeat going while a takeover is still finalising replies', async () => {
    const [a, b] = await joined(member('a'), member('b', { recovery: new Promise<void>(() => undefined) }));
    await a.m.claim('k');
    t.clock.t += LEASE + 1;
    await b.tick();
    expect(b.takeovers).toHaveLength(1);
    t.clock.t += 1000;
    await b.tick();
    expect((await t.store.listInstances()).find((i) => i.instance_id === 'b')?.heartbeat_at).toBe(t.clock.t);
  });

  it('hands a start the conversations its id left behind in an earlier process', async () => {
    const first = member('a');
    await first.m.join();
    await first.m.claim('k');
    const again = member('a');
    expect((await again.m.join()).keys).toEqual(['k']);
  });
});
