/**
 * Issue "Nothing lost when the index is lost", tried as an operator would through the web playground:
 * chat, `/new`, an operator's mode change and titles; stop; delete gateway.db; `reindex` (or just start:
 * the gateway notices and rebuilds). Sessions, usage in every grouping and bindings come back exactly, and
 * the next message continues the same session. Also: failed compaction attempts and title requests are
 * billed alike live and rebuilt, and `/new` leaves no stale binding on the old session.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAIServer, httpError, turn } from '../../fakes/openai-server';
import { runCli } from '../../../src/gateway/cli/index';
import { startHarness, type Harness } from './harness';
import { indexSnapshot } from './index-snapshot';

let model: FakeOpenAIServer;
let home: string;
let h: Harness | undefined;
beforeEach(async () => {
  model = new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'A short title', usage: { prompt_tokens: 9, completion_tokens: 3 } }) });
  await model.start();
  home = await mkdtemp(join(tmpdir(), 'pg-rebuild-'));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await model.stop();
  rmSync(home, { recursive: true, force: true });
});

const start = () => startHarness({ home, model });
const dataDir = () => join(home, 'data');
const dropDatabase = () => {
  for (const f of readdirSync(dataDir())) if (f.startsWith('gateway.db')) rmSync(join(dataDir(), f));
};
const reply = (text: string) => turn({ text, usage: { prompt_tokens: 40, completion_tokens: 5 } });

async function chat(g: Harness, conversation: string, text: string, answer: string): Promise<void> {
  model.enqueue(reply(answer));
  await g.say(conversation, text);
  await g.waitFor(`"${answer}" in ${conversation}`, () => g.botMessages(conversation).find((m) => m.final && m.text.includes(answer)));
}

/** Every request's usage row is in, titles included (they come after the reply). */
async function settled(g: Harness, rows: number): Promise<void> {
  await g.waitFor(`${rows} usage rows`, async () => (await g.gateway.store.listUsage({})).length === rows);
  await g.waitFor('titles', async () => (await g.gateway.store.listSessions()).every((s) => s.title === 'A short title'));
}

async function runReindex(): Promise<string> {
  let out = '';
  const env = { HOME: home, PENGUIN_HOME: dataDir() };
  const code = await runCli(['reindex'], { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) }, env, cwd: home });
  expect(code).toBe(0);
  return out;
}

describe('losing gateway.db loses nothing', () => {
  it('reindex restores sessions, usage and bindings exactly, and conversations continue where they were', async () => {
    h = await start();
    await chat(h, 'rz', 'remember BANANA', 'Remembered.');
    await chat(h, 'c2', 'hello', 'Hi there.');
    await chat(h, 'c3', 'first topic', 'Noted.');
    await h.say('c3', '/new');
    await h.waitFor('/new answered', () => h!.botMessages('c3').find((m) => m.text.includes('New session')));
    await chat(h, 'c3', 'second topic', 'Sure.');
    const c2 = (await h.gateway.store.resolveBinding('web:c2'))!;
    expect((await h.api(`/api/sessions/${c2}`, { method: 'PATCH', body: { approval_mode: 'allow-all' } })).status).toBe(200);
    await settled(h, 8);

    const sessions = (await h.api('/api/sessions')).body.sessions as { binding_key: string | null; title: string }[];
    expect(sessions.map((s) => s.binding_key).sort()).toEqual([null, 'web:c2', 'web:c3', 'web:rz']);
    const live = await indexSnapshot(h, ['rz', 'c2', 'c3']);
    await h.close();
    h = undefined;

    dropDatabase();
    expect(await runReindex()).toMatch(/^Reindexed .*: 4 sessions, 8 usage rows, \d+ journal entries\.\n$/);
    h = await start();
    const rebuilt = await indexSnapshot(h, ['rz', 'c2', 'c3']);
    expect(rebuilt).toEqual(live);
    expect((rebuilt.usage.route as { groups: { key: string }[] }).groups.map((g) => g.key)).toEqual(['default']);
    expect((rebuilt.usage.user as { groups: { key: string; requests: number }[] }).groups).toEqual([expect.objectContaining({ key: 'web:admin', requests: 8 })]);

    const rz = live.bindings.rz!;
    await chat(h, 'rz', 'what word?', 'BANANA.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('remember BANANA');
    expect(await h.gateway.store.resolveBinding('web:rz')).toBe(rz);
  });

  it('a gateway that finds its database missing rebuilds it at start, with a log line', async () => {
    h = await start();
    await chat(h, 'rz', 'remember BANANA', 'Remembered.');
    await settled(h, 2);
    const live = await indexSnapshot(h, ['rz']);
    await h.close();
    h = undefined;
    dropDatabase();
    const logs: string[] = [];
    h = await startHarness({ home, model, logLines: logs });
    expect(await indexSnapshot(h, ['rz'])).toEqual(live);
    const line = logs.map((l) => JSON.parse(l)).find((l) => l.reason === 'missing');
    expect(line).toMatchObject({ level: 40, msg: expect.stringMatching(/gateway\.db was missing; rebuilt the index from the files: 1 session, 2 usage rows, \d+ journal entries$/) });
  });

  it('a conversation whose session never ran keeps it, and its mode, across a restart', async () => {
    h = await start();
    await h.say('m1', '/mode deny-all');
    await h.waitFor('/mode answered', () => h!.botMessages('m1').find((m) => m.text.includes('deny-all')));
    const sid = (await h.gateway.store.resolveBinding('web:m1'))!;
    await h.close();
    h = await start();
    await chat(h, 'm1', 'hello', 'Hi.');
    expect(await h.gateway.store.resolveBinding('web:m1')).toBe(sid);
    expect((await h.gateway.store.getSession(sid))?.approval_mode).toBe('deny-all');
  });

  it('/new clears the old session\'s binding_key', async () => {
    h = await start();
    await chat(h, 'c1', 'one', 'First.');
    const old = (await h.gateway.store.resolveBinding('web:c1'))!;
    await h.say('c1', '/new');
    await h.waitFor('/new answered', () => h!.botMessages('c1').find((m) => m.text.includes('New session')));
    expect((await h.api(`/api/sessions/${old}`)).body).toMatchObject({ session: { session_id: old, binding_key: null }, bindings: [] });
  });

  it('bills failed compaction attempts and title requests alike live and rebuilt', async () => {
    const state = join(dataDir(), 'default_project', 'agents', 'default_agent', 'agent_state');
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'system_config.yaml'), 'system_prompt: You are a helpful assistant.\ncompaction:\n  max_session_turns: 1\n');
    h = await startHarness({ home, model, engineClock: { now: () => Date.now(), sleep: async () => undefined } });
    // The turn, then the summary request: it fails once (HTTP 500, retried at once on this clock) and then works.
    model.enqueue(reply('Answered.'), httpError(500), turn({ text: '[summary]they said hi[/summary]', usage: { prompt_tokens: 60, completion_tokens: 8 } }));
    await h.say('k1', 'hi');
    await h.waitFor('the answer', () => h!.botMessages('k1').find((m) => m.final && m.text.includes('Answered.')));
    await h.waitFor('compaction and title billed', async () => (await h!.gateway.store.listUsage({})).length === 4);
    const rows = await h.gateway.store.listUsage({});
    expect(rows.map((r) => r.status).sort()).toEqual(['completed', 'completed', 'completed', 'timeout']);
    const live = await indexSnapshot(h, ['k1']);
    expect((live.usage.session as { groups: { requests: number; failures: number }[] }).groups[0]).toMatchObject({ requests: 3, failures: 1 });
    await h.close();
    h = undefined;
    dropDatabase();
    await runReindex();
    h = await start();
    expect(await indexSnapshot(h, ['k1'])).toEqual(live);
  });
});

