/**
 * Housekeeping on the real store (each backend) and a fake clock: a round at start and every hour prunes inbound
 * dedupe ids past two days and reply-timeline events past the retention; a failing store is logged and
 * the next hour tries again; stop ends the loop.
 */
import pino from 'pino';
import { Housekeeping, HOUSEKEEPING_INTERVAL_MS, INBOUND_DEDUPE_MS } from '../../../src/gateway/runtime/housekeeping';
import { FakeClock } from '../../helpers/fake-clock';
import { describeBackends, openTestStore, type TestStore } from '../store/helpers';

const DAY = 86_400_000;

describeBackends('housekeeping', (backend) => {
  let t: TestStore;
  beforeEach(async () => (t = await openTestStore(backend)));
  afterEach(() => t.cleanup());

  it('prunes at start and hourly: dedupe ids after two days, timeline events after the retention', async () => {
    const clock = new FakeClock(t.clock.t);
    const store = t.store;
    await store.recordInbound('slack', 'old', clock.now() - INBOUND_DEDUPE_MS - 1);
    await store.recordInbound('slack', 'fresh', clock.now() - 1000);
    await store.addDeliveryEvent({ task_id: 'old', delivery_id: null, part: null, kind: 'post', detail: null, at: clock.now() - 3 * DAY - 1 });
    await store.addDeliveryEvent({ task_id: 'kept', delivery_id: null, part: null, kind: 'post', detail: null, at: clock.now() - 2 * DAY });
    const hk = new Housekeeping({ store, clock, logger: pino({ level: 'silent' }), deliveryEventsDays: 3 });
    hk.start();
    await clock.advance(0);
    await hk.idle();
    expect(await store.recordInbound('slack', 'old')).toBe(true);
    expect(await store.recordInbound('slack', 'fresh')).toBe(false);
    expect(await store.listDeliveryEvents('old')).toEqual([]);
    expect(await store.listDeliveryEvents('kept')).toHaveLength(1);

    // a day on, and the next hourly round: the kept event is past three days too
    await clock.advance(DAY);
    await hk.idle();
    await clock.advance(HOUSEKEEPING_INTERVAL_MS);
    await hk.idle();
    expect(await store.listDeliveryEvents('kept')).toEqual([]);
    await hk.stop();
  });
});

it('logs a failed round and tries again the next hour', async () => {
  const clock = new FakeClock();
  let calls = 0;
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => warnings.push(JSON.parse(l).msg) });
  const store = {
    pruneInbound: async () => {
      calls++;
      if (calls === 1) throw new Error('database is locked');
      return 0;
    },
    pruneDeliveryEvents: async () => 0,
  };
  const hk = new Housekeeping({ store, clock, logger, deliveryEventsDays: 30 });
  hk.start();
  await clock.advance(0);
  expect(warnings).toEqual(['housekeeping round failed; next try in an hour']);
  await clock.advance(HOUSEKEEPING_INTERVAL_MS);
  expect(calls).toBe(2);
  await hk.stop();
  await clock.advance(5 * HOUSEKEEPING_INTERVAL_MS);
  expect(calls).toBe(2);
});
