/**
 * PairingNotifier: a decision written by any process is told once, by a process that runs the platform:
 * on its poll or at once when poked; a decision for a platform this process does not run is left for one
 * that does; two gateways on one database never both tell.
 */
import { join } from 'node:path';
import pino from 'pino';
import { PairingNotifier } from '../../../src/gateway/runtime/pairing-notifier';
import { openSqliteStore, type PairingRow, type SqliteStore } from '../../../src/gateway/store';
import { FakeClock } from '../../helpers/fake-clock';
import { tempDir } from '../store/helpers';

let store: SqliteStore;
let clock: FakeClock;
beforeEach(() => {
  clock = new FakeClock();
  store = openSqliteStore(join(tempDir('pg-notify-'), 'gateway.db'), { now: () => clock.now() });
});
afterEach(() => store.close());

function notifier(platforms: string[], told: PairingRow[]): PairingNotifier {
  return new PairingNotifier({
    store, clock, logger: pino({ level: 'silent' }), intervalMs: 2000,
    runs: (p) => platforms.includes(p),
    tell: async (row) => void told.push(row),
  });
}

async function decided(platform: string, userId: string, decision: 'approved' | 'denied'): Promise<string> {
  const { row } = await store.requestPairing({ platform, user_id: userId, chat: `${platform}:${userId}:-`, expires_at: clock.now() + 60_000 });
  await store.decidePairing(row.code, decision, null);
  return row.code;
}

describe('PairingNotifier', () => {
  it('tells each decided request once, on the next poll', async () => {
    const told: PairingRow[] = [];
    const n = notifier(['telegram'], told);
    n.start();
    const a = await decided('telegram', '1', 'approved');
    const b = await decided('telegram', '2', 'denied');
    await clock.advance(1999);
    expect(told).toEqual([]);
    await clock.advance(1);
    await n.poke();
    expect(told.map((r) => [r.code, r.state]).sort()).toEqual([[a, 'approved'], [b, 'denied']].sort());
    await clock.advance(6000);
    expect(told).toHaveLength(2);
    expect((await store.getPairing(a))?.notified_at).toBe(clock.now() - 6000);
    await n.stop();
  });

  it('leaves a decision for a platform it does not run to a process that does', async () => {
    const told: PairingRow[] = [];
    const code = await decided('discord', '123456789012345678', 'approved');
    await notifier(['telegram'], told).poke();
    expect(told).toEqual([]);
    expect((await store.getPairing(code))?.notified_at).toBeNull();
    await notifier(['discord'], told).poke();
    expect(told.map((r) => r.code)).toEqual([code]);
  });

  it('two gateways on one database tell a decision once between them', async () => {
    const told: PairingRow[] = [];
    await decided('telegram', '7', 'approved');
    await Promise.all([notifier(['telegram'], told).poke(), notifier(['telegram'], told).poke()]);
    expect(told).toHaveLength(1);
  });

  it('does not tell pending or expired requests', async () => {
    const told: PairingRow[] = [];
    await store.requestPairing({ platform: 'telegram', user_id: '8', expires_at: clock.now() + 10 });
    await store.expirePairings(clock.now() + 20);
    await store.requestPairing({ platform: 'telegram', user_id: '9', expires_at: clock.now() + 60_000 });
    await notifier(['telegram'], told).poke();
    expect(told).toEqual([]);
  });
});
