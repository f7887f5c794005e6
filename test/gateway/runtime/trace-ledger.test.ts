/**
 * TraceLedger against a real SQLite index: a session's batches are applied in order, while a session whose
 * index write is slow holds up no other session's, and `settled()` waits for every batch handed over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { TraceLedger } from '../../../src/gateway/runtime/trace-ledger';
import { openSqliteStore, type GatewayStore, type SqliteStore } from '../../../src/gateway/store';

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pg-ledger-'));
  store = openSqliteStore(join(dir, 'gateway.db'));
  for (const id of ['slow', 'fast']) await store.createSession({ session_id: id, project_id: 'p', agent_id: 'a', created_at: 1_000 });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (ms: number): OmniMessage => ({ ...b.userText('hi'), timestamp: new Date(ms).toISOString() });
const who = (sessionId: string) => ({ sessionId, provider: 'openai', modelId: 'm' });
const lastActive = async (id: string) => (await store.getSession(id))!.last_active_at;

/** The store, with the session `slow`'s index updates held until `release()`. */
function holdingSlow(): { held: GatewayStore; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held: GatewayStore = {
    ...store,
    getSession: (id) => store.getSession(id),
    updateSession: async (id, patch) => {
      if (id === 'slow') await gate;
      return store.updateSession(id, patch);
    },
  };
  return { held, release };
}

test("a session whose index write is slow holds up no other session's", async () => {
  const { held, release } = holdingSlow();
  const ledger = new TraceLedger({ store: held, logger: pino({ level: 'silent' }) });
  const observe = ledger.observer('p', 'a');
  observe([at(5_000)], who('slow'));
  observe([at(6_000)], who('fast'));
  for (let i = 0; i < 100 && (await lastActive('fast')) !== 6_000; i++) await new Promise((r) => setTimeout(r, 5));
  expect(await lastActive('fast')).toBe(6_000);
  expect(await lastActive('slow')).toBe(1_000);
  let settled = false;
  const done = ledger.settled().then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(settled).toBe(false);
  release();
  await done;
  expect(await lastActive('slow')).toBe(5_000);
});

test("one session's batches are applied in the order they were traced", async () => {
  // Each later write of the session is quicker than the one before: applied side by side, the first would land last.
  let delay = 60;
  let written = 0;
  const slowing: GatewayStore = {
    ...store,
    getSession: (id) => store.getSession(id),
    updateSession: async (id, patch) => {
      await new Promise((r) => setTimeout(r, (delay -= 20)));
      const row = await store.updateSession(id, patch);
      written++;
      return row;
    },
  };
  const ledger = new TraceLedger({ store: slowing, logger: pino({ level: 'silent' }) });
  const observe = ledger.observer('p', 'a');
  observe([at(5_000)], who('slow'));
  observe([at(7_000)], who('slow'));
  observe([at(9_000)], who('slow'));
  await ledger.settled();
  for (let i = 0; i < 100 && written < 3; i++) await new Promise((r) => setTimeout(r, 5));
  expect(written).toBe(3);
  expect(await lastActive('slow')).toBe(9_000);
});
