/**
 * FakeClock: timers fire in time order (ties in creation order), cleared timers never fire, promise chains
 * run between timers, and `settle` reports a promise that fake time cannot resolve.
 */
import { delay } from '../../src/adapters/contract/clock';
import { FakeClock } from './fake-clock';

describe('FakeClock', () => {
  it('fires due timers in order and moves time to each', async () => {
    const clock = new FakeClock(1000);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => seen.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => seen.push(`c@${clock.now()}`), 20);
    const gone = clock.setTimeout(() => seen.push('never'), 5);
    clock.clearTimeout(gone);
    await clock.advance(15);
    expect(seen).toEqual(['a@1010']);
    expect(clock.now()).toBe(1015);
    await clock.advance(100);
    expect(seen).toEqual(['a@1010', 'b@1020', 'c@1020']);
    expect(clock.pending).toBe(0);
  });

  it('runs promise chains between timers, so awaited delays compose', async () => {
    const clock = new FakeClock(0);
    const steps: number[] = [];
    const job = (async () => {
      for (let i = 0; i < 3; i++) {
        await delay(clock, 100);
        steps.push(clock.now());
      }
      return 'done';
    })();
    expect(await clock.settle(job)).toBe('done');
    expect(steps).toEqual([100, 200, 300]);
  });

  it('settle fails instead of hanging when nothing can resolve the promise', async () => {
    const clock = new FakeClock(0);
    await expect(clock.settle(new Promise(() => undefined))).rejects.toThrow(/still pending/);
    clock.setTimeout(() => undefined, 10_000);
    await expect(clock.settle(new Promise(() => undefined), 1000)).rejects.toThrow(/after 1000 ms of fake time/);
  });
});
