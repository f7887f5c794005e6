/**
 * The idle collector gives a burst's garbage back once the gateway is quiet: one collection after
 * `quietMs` without activity and with no Task (or title request) running, at most one per ten quiet times, none without
 * activity since the last. In a running gateway (the web playground) it follows messages and Tasks, and
 * `exposeGc()` is a real full collection: an object nothing holds is gone after it.
 */
import { exposeGc } from '../../../src/gateway/runtime/v8-gc';
import { IdleCollector } from '../../../src/gateway/runtime/idle-collector';
import { hang } from '../../fakes/openai-server';
import { FakeClock } from '../../helpers/fake-clock';
import { startHarness, type Harness } from './harness';

const quiet = { debug: () => undefined };

function collector(o: { quietMs?: number; busy?: () => boolean } = {}) {
  const clock = new FakeClock();
  let collected = 0;
  const reported: number[] = [];
  const c = new IdleCollector({
    clock, logger: quiet, quietMs: o.quietMs ?? 1000, busy: o.busy ?? (() => false),
    collect: () => void collected++, heapUsed: () => 0, collected: (ms) => void reported.push(ms),
  });
  return { clock, c, collected: () => collected, reported };
}

describe('IdleCollector', () => {
  it('collects once, quietMs after the last activity', async () => {
    const { clock, c, collected } = collector();
    c.activity();
    await clock.advance(600);
    c.activity();
    await clock.advance(999);
    expect(collected()).toBe(0);
    await clock.advance(1);
    expect(collected()).toBe(1);
    await clock.advance(60_000);
    expect(collected()).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('never collects without activity, or when quietMs is 0', async () => {
    const idle = collector();
    await idle.clock.advance(60_000);
    expect(idle.collected()).toBe(0);
    const off = collector({ quietMs: 0 });
    off.c.activity();
    await off.clock.advance(60_000);
    expect(off.collected()).toBe(0);
    expect(off.clock.pending).toBe(0);
  });

  it('waits while a Task runs and collects a quiet time after it was last seen running', async () => {
    let busy = true;
    const { clock, c, collected } = collector({ busy: () => busy });
    c.activity();
    await clock.advance(30_000);
    expect(collected()).toBe(0);
    busy = false;
    await clock.advance(999);
    expect(collected()).toBe(0);
    await clock.advance(1);
    expect(collected()).toBe(1);
  });

  it('keeps ten quiet times between collections however often the gateway goes quiet', async () => {
    const { clock, c, collected, reported } = collector();
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(1);
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(1);
    await clock.advance(8000);
    expect(collected()).toBe(1);
    await clock.advance(1000);
    expect(collected()).toBe(2);
    // Each collection is reported with how long it held the loop (none, on a fake clock).
    expect(reported).toEqual([0, 0]);
  });

  it('stops: no collection after stop()', async () => {
    const { clock, c, collected } = collector();
    c.activity();
    c.stop();
    c.activity();
    await clock.advance(10_000);
    expect(collected()).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe('exposeGc', () => {
  it('runs a full collection: an object nothing refers to is collected', async () => {
    let target: object | undefined = { big: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = undefined;
    // A WeakRef holds its target until the job that made (or last dereferenced) it has ended.
    expect(ref.deref()).toBeDefined();
    await new Promise((r) => setImmediate(r));
    exposeGc()();
    expect(ref.deref()).toBeUndefined();
  });
});

describe('the gateway goes quiet', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('collects after start and after a reply, not while a Task runs', async () => {
    let collected = 0;
    h = await startHarness({ configYaml: 'sessions:\n  idle_gc_ms: 50\n', collectGarbage: () => void collected++ });
    await h.waitFor('the collection after start', () => collected === 1);
    h.model.enqueue(hang());
    await h.say('a', 'this one keeps running');
    await h.waitFor('a running', () => h!.gateway.manager.runningCount === 1);
    // Past ten quiet times (500 ms) the collector would have run by now, were it not waiting for the Task.
    await new Promise((r) => setTimeout(r, 800));
    expect(collected).toBe(1);
    await h.gateway.manager.stopSession((await h.gateway.store.listSessions({}))[0].session_id);
    await h.waitFor('no Task running', () => h!.gateway.manager.runningCount === 0);
    await h.waitFor('the collection after the Task', () => collected === 2);
    expect(await h.gateway.metrics.registry.metrics()).toMatch(/^penguin_gateway_idle_collections_total 2$/m);
  });
});
