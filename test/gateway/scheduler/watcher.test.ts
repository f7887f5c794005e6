/**
 * The schedule directory watcher on the real file system: a save in a watched directory is reported once
 * per burst; a directory that does not exist yet is watched through its parent, so its creation is seen;
 * after close nothing is reported.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../src/adapters/contract/clock';
import { watchDirectories } from '../../../src/gateway/scheduler';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pg-watch-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

function changes() {
  let n = 0;
  const waiters: (() => void)[] = [];
  return {
    changed: () => {
      n++;
      waiters.splice(0).forEach((w) => w());
    },
    get count() {
      return n;
    },
    next: () => new Promise<void>((r) => waiters.push(r)),
  };
}

describe('schedule directory watcher', () => {
  it('reports a burst of writes once', async () => {
    const dir = join(root, 'schedule');
    await mkdir(dir);
    const c = changes();
    const w = watchDirectories(c.changed, { clock: systemClock, debounceMs: 300 });
    w.sync([dir]);
    const seen = c.next();
    await writeFile(join(dir, 'a.toml'), 'x');
    await writeFile(join(dir, 'b.toml'), 'y');
    await seen;
    expect(c.count).toBe(1);
    w.close();
  });

  it('sees a directory being created through its parent, then watches the directory itself', async () => {
    const dir = join(root, 'agent_state', 'schedule');
    await mkdir(join(root, 'agent_state'));
    const c = changes();
    const w = watchDirectories(c.changed, { clock: systemClock, debounceMs: 50 });
    w.sync([dir]);
    let seen = c.next();
    await mkdir(dir);
    await seen;
    w.sync([dir]);
    seen = c.next();
    await writeFile(join(dir, 'job.toml'), 'x');
    await seen;
    expect(c.count).toBe(2);
    w.close();
    await writeFile(join(dir, 'job.toml'), 'y');
    await new Promise((r) => setTimeout(r, 150));
    expect(c.count).toBe(2);
  });
});
