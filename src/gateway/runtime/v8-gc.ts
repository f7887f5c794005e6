/**
 * V8's full garbage collection for the idle collector (./idle-collector.ts). Node offers it only behind
 * `--expose-gc`, and the command line is not ours (`npm start`, the image, systemd start the process), so
 * the flag is set from inside: it adds `gc` to contexts made after it, and a new context hands it over.
 * The collection compacts every page it can: after a burst the heap is fragmented by garbage that lived
 * across awaits, and only pages emptied by compaction go back to the system. No library does this.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Collect = () => void;

let collector: Collect | undefined;

export function exposeGc(): Collect {
  if (!collector) {
    setFlagsFromString('--expose-gc');
    // Without options: V8's forced full collection (with options it is a regular one, which may keep more).
    const gc = runInNewContext('gc') as () => void;
    collector = () => {
      setFlagsFromString('--compact-on-every-full-gc');
      try {
        gc();
      } finally {
        setFlagsFromString('--no-compact-on-every-full-gc');
      }
    };
  }
  return collector;
}
