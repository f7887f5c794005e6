/** Test helpers: a store in a fresh temp dir with a hand-driven clock; `cleanup` closes it and removes the dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type OpenOptions, type SqliteStore } from '../../../src/gateway/store';

export interface TestStore {
  store: SqliteStore;
  dir: string;
  clock: { t: number };
  cleanup: () => Promise<void>;
}

export function tempDir(prefix = 'pg-store-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function openTestStore(opts: OpenOptions = {}): TestStore {
  const dir = tempDir();
  const clock = { t: 1_800_000_000_000 };
  const store = openSqliteStore(join(dir, 'gateway.db'), { now: () => clock.t, ...opts });
  return {
    store,
    dir,
    clock,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
