/**
 * Holds V8's young generation small in the gateway's process. V8 doubles its two semi-spaces while a
 * burst's objects survive scavenges, up to 32 MiB together: 20 streaming conversations grew it to that,
 * a quarter of a 125 MB peak. The ceiling V8 has for this (`--max-semi-space-size`) is fixed when the heap is
 * made, from the command line, which is not ours (`npm start`, the image and systemd start the process).
 * The growth factor is read at each growth, though: once a collection leaves the young generation at
 * `stopAtBytes` or more it is set to 1 (no growth), and back to V8's default once V8 has shrunk it. GC
 * events arrive between event-loop turns, so a turn that scavenges twice can take it one doubling further.
 * The stop rises with the heap, to a sixteenth of what is in use (dead objects not yet collected
 * included): a heap that large (a thousand conversations opening at once) pays less for a larger young
 * generation than it gains (fewer scavenges, fewer objects promoted only to die; ~15 % less CPU in that
 * burst), while a small process keeps its small one.
 * The hold is lifted while a bundle compiles (../bundle-loader.ts): its code cache was made under the default.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { guardEachCompile } from '../bundle-loader';

/** V8's default growth factor (`--semi-space-growth-factor`). */
const V8_GROWTH_FACTOR = 2;
/** The young generation may grow to this share of the heap in use, when that is above the stop. */
const HEAP_SHARE = 1 / 16;

/** Both semi-spaces, committed. */
export const youngGenerationBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/** Stops the young generation's growth at `stopAtBytes` (or a sixteenth of the heap in use) from now on; returns what undoes it. */
export function capYoungGeneration(stopAtBytes: number): () => void {
  let held = false;
  const check = (): void => {
    const atCeiling = youngGenerationBytes() >= Math.max(stopAtBytes, getHeapStatistics().used_heap_size * HEAP_SHARE);
    if (atCeiling === held) return;
    held = atCeiling;
    setFlagsFromString(`--semi-space-growth-factor=${held ? 1 : V8_GROWTH_FACTOR}`);
  };
  // A bundle's code cache was made under V8's default factor: the hold is lifted for the compile.
  const unguard = guardEachCompile(() => {
    if (!held) return () => undefined;
    setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
    return () => setFlagsFromString('--semi-space-growth-factor=1');
  });
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => {
    observer.disconnect();
    unguard();
    if (held) setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
    held = false;
  };
}
