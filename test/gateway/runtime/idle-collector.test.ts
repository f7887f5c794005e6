/**
 * The idle collector gives a burst's garbage back once the gateway is quiet: one collection after
 * `quietMs` without activity and with no Task (or title request) running, at most one per ten quiet times, none without
 * activity since the last, but one settling collection SETTLE_MS later, still quiet, when the first left the
 * young generation grown. In a running gateway (the web playground) it follows messages and Tasks, and
 * `exposeGc()` is a real full collection: an object nothing holds is gone after it.
 */
import { exposeGc } from '../../../src/gateway/runtime/v8-gc';
import { IdleCollector, SETTLE_MS } from '../../../src/gateway/runtime/idle-collector';
import { hang } from '../../fakes/openai-server';
import { FakeClock } from '../../helpers/fake-clock';
import { startHarness, type Harness } from './harness';

const quiet = { debug: () => undefined };

function collector(o: { quietMs?: number; busy?: () => boolean; grown?: () => boolean } = {}) {
  const clock = new FakeClock();
  let collected = 0;
  const reported: number[] = [];
  const c = new IdleCollector({
    clock, logger: quiet, quietMs: o.quietMs ?? 1000, busy: o.busy ?? (() => false),
    heap: { collect: () => void collected++, youngGenerationGrown: o.grown ?? (() => false) },
    heapUsed: () => 0, collected: (ms) => void reported.push(ms),
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

  it('settles once, SETTLE_MS after a collection that left the young generation grown', async () => {
    let grown = true;
    const { clock, c, collected } = collector({ grown: () => grown });
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(1);
    await clock.advance(SETTLE_MS - 1);
    expect(collected()).toBe(1);
    await clock.advance(1);
    expect(collected()).toBe(2);
    // Still grown after settling: V8 keeps it, and the collector does not try again until new activity.
    await clock.advance(60_000);
    expect(collected()).toBe(2);
    expect(clock.pending).toBe(0);
    grown = false;
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(3);
    await clock.advance(60_000);
    expect(collected()).toBe(3);
  });

  it('drops the settling collection when activity comes first, and collects once it is quiet again', async () => {
    const { clock, c, collected } = collector({ grown: () => true });
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(1);
    await clock.advance(2000);
    c.activity();
    await clock.advance(SETTLE_MS);
    expect(collected()).toBe(1);
    // Ten quiet times after the first collection (t = 11 s): the next one, which may settle in turn.
    await clock.advance(1999);
    expect(collected()).toBe(1);
    await clock.advance(1);
    expect(collected()).toBe(2);
  });

  it('does not settle while a Task runs', async () => {
    let busy = false;
    const { clock, c, collected } = collector({ busy: () => busy, grown: () => true });
    c.activity();
    await clock.advance(1000);
    expect(collected()).toBe(1);
    busy = true;
    await clock.advance(SETTLE_MS + 30_000);
    expect(collected()).toBe(1);
    busy = false;
    await clock.advance(1000);
    expect(collected()).toBe(2);
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
    exposeGc().collect();
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
    h = await startHarness({ configYaml: 'sessions:\n  idle_gc_ms: 50\n', collectGarbage: { collect: () => void collected++, youngGenerationGrown: () => false } });
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
