/**
 * Test helpers of the store contract suite: `describeBackends` runs a suite once per backend (SQLite, and
 * PostgreSQL on the run's throwaway server, skipped with the reason when PostgreSQL is not installed,
 * outside CI); `openTestStore` gives a store on a fresh database with a hand-driven clock and a temp dir,
 * whose `cleanup` closes it and removes the dir; `storePerTest` opens one per test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayStore, IndexStore } from '../../../src/gateway/store';
import { POSTGRES_SKIPPED, postgresBackend, releasePostgres, sqliteBackend, type Backend, type TargetOptions, type TestTarget } from './backends';

export { sqliteBackend, postgresBackend, type Backend, type TestTarget } from './backends';

export interface TestStore {
  store: IndexStore;
  target: TestTarget;
  dir: string;
  clock: { t: number };
  cleanup: () => Promise<void>;
}

export function tempDir(prefix = 'pg-store-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function openTestStore(backend: Backend = sqliteBackend, opts: TargetOptions = {}): Promise<TestStore> {
  const dir = tempDir();
  const clock = { t: 1_800_000_000_000 };
  const target = (!opts.migrations && (await backend.migrated?.(dir))) || (await backend.target(dir));
  const store = await target.open({ now: () => clock.t, ...opts });
  return {
    store,
    target,
    dir,
    clock,
    cleanup: async () => {
      await store.close();
      if (!opts.migrations) await target.recycle?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh store for every test of the enclosing describe on `backend`, cleaned up after it: read `.t` and `.store` inside tests. */
export function storePerTest(backend: Backend): { t: TestStore; store: GatewayStore } {
  const ctx = {} as { t: TestStore; store: GatewayStore };
  beforeEach(async () => {
    ctx.t = await openTestStore(backend);
    ctx.store = ctx.t.store;
  });
  afterEach(() => ctx.t.cleanup());
  return ctx;
}

/** `describe(title [backend])` once per backend, each with the backend to open stores on. */
export function describeBackends(title: string, suite: (backend: Backend) => void): void {
  describe(`${title} [sqlite]`, () => suite(sqliteBackend));
  describePostgres(title, suite);
}

/** `describe(title [postgres])`, or its skip with the reason when PostgreSQL is missing outside CI. */
export function describePostgres(title: string, suite: (backend: Backend) => void): void {
  if (POSTGRES_SKIPPED) {
    describe.skip(`${title} [postgres: skipped, ${POSTGRES_SKIPPED}]`, () => suite(postgresBackend));
    return;
  }
  describe(`${title} [postgres]`, () => {
    afterAll(releasePostgres);
    suite(postgresBackend);
  });
}
