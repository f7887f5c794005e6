/**
 * What the data root holds is for its owner only (gateway.md §6): the root is 0700 (and made so when it
 * was not), gateway.db and its WAL files and every trace file are 0600, trace directories 0700.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { turn } from '../../fakes/openai-server';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) await walk(p, out);
  }
  return out;
}

test('the data root, the database and the traces are private to the gateway user', async () => {
  const home = await mkdtemp(join(tmpdir(), 'pg-modes-'));
  try {
    await mkdir(join(home, 'data'), { mode: 0o755 });
    h = await startHarness({ home });
    h.model.enqueue(turn({ text: 'stored' }));
    await h.say('modes', 'hello');
    await h.waitFor('reply', () => h!.botMessages('modes').some((m) => m.text.includes('stored')));
    const data = join(home, 'data');
    expect(await mode(data)).toBe(0o700);
    for (const f of ['gateway.db', 'gateway.db-wal', 'gateway.db-shm']) expect(await mode(join(data, f))).toBe(0o600);
    const traces = join(data, 'default_project', 'agents', 'default_agent', 'traces');
    const entries = await walk(traces);
    expect(entries.some((p) => p.endsWith('.jsonl'))).toBe(true);
    for (const p of entries) expect([p, await mode(p)]).toEqual([p, p.endsWith('.jsonl') ? 0o600 : 0o700]);
  } finally {
    await h?.close();
    h = undefined;
    await rm(home, { recursive: true, force: true });
  }
});
