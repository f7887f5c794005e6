/**
 * Watches schedule directories (fs.watch) and reports a change once per burst (an atomic save is several
 * events), after `debounceMs` on the injected clock. `sync(dirs)` watches each given directory, or while it
 * does not exist yet its nearest existing parent up to `ANCESTORS` levels (agent_state, the agent), so its
 * creation is seen too; the scheduler syncs after each reload, which moves the watch down to the directory.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

const ANCESTORS = 2;

function nearestExisting(dir: string): string | undefined {
  let d = dir;
  for (let i = 0; i <= ANCESTORS; i++, d = dirname(d)) if (existsSync(d)) return d;
  return undefined;
}
import type { Clock, TimerHandle } from '../../adapters/contract/clock';

export interface DirWatcher {
  sync(dirs: readonly string[]): void;
  close(): void;
}

export function watchDirectories(changed: () => void, o: { clock: Clock; debounceMs?: number; onError?: (dir: string, err: Error) => void }): DirWatcher {
  const watchers = new Map<string, FSWatcher>();
  let timer: TimerHandle | undefined;
  let closed = false;
  const poke = () => {
    if (closed || timer) return;
    timer = o.clock.setTimeout(() => {
      timer = undefined;
      if (!closed) changed();
    }, o.debounceMs ?? 150);
  };
  return {
    sync(dirs) {
      if (closed) return;
      const want = new Set(dirs.flatMap((d) => nearestExisting(d) ?? []));
      for (const [dir, w] of watchers) {
        if (!want.has(dir)) {
          w.close();
          watchers.delete(dir);
        }
      }
      for (const dir of want) {
        if (watchers.has(dir)) continue;
        try {
          const w = watch(dir, { persistent: false }, poke);
          w.on('error', (err) => {
            w.close();
            watchers.delete(dir);
            o.onError?.(dir, err);
          });
          watchers.set(dir, w);
        } catch {
          // gone meanwhile: the next sync tries again
        }
      }
    },
    close() {
      closed = true;
      if (timer) o.clock.clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
