/**
 * V8's full garbage collection for the idle collector (./idle-collector.ts). Node offers it only behind
 * `--expose-gc`, and the command line is not ours (`npm start`, the image, systemd start the process), so
 * the flag is set from inside: it adds `gc` to contexts made after it, and a new context hands it over.
 * The collection compacts every page it can: after a burst the heap is fragmented by garbage that lived
 * across awaits, and only pages emptied by compaction go back to the system. No library does this.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { youngGenerationBytes } from './v8-young-generation';

export interface HeapCollector {
  /** One forced full collection that compacts. */
  collect(): void;
  /** True while a burst has left V8's young generation grown well past its starting size. */
  youngGenerationGrown(): boolean;
}

/**
 * The young generation starts at 1 MiB and doubles as a burst's objects survive; from two doublings up it
 * is worth a second collection to hand it back (below, what is left to gain is smaller than that GC's cost).
 */
export const GROWN_YOUNG_BYTES = 4 * 1024 * 1024;

let collector: HeapCollector | undefined;

export function exposeGc(): HeapCollector {
  if (!collector) {
    setFlagsFromString('--expose-gc');
    // Without options: V8's forced full collection (with options it is a regular one, which may keep more).
    const gc = runInNewContext('gc') as () => void;
    collector = {
      collect: () => {
        setFlagsFromString('--compact-on-every-full-gc');
        try {
          gc();
        } finally {
          setFlagsFromString('--no-compact-on-every-full-gc');
        }
      },
      youngGenerationGrown: () => youngGenerationBytes() >= GROWN_YOUNG_BYTES,
    };
  }
  return collector;
}
