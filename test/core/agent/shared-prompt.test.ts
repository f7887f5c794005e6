/**
 * The sessions of one agent share its system prompt instead of each keeping a copy: with a 640 KB
 * AGENTS.md, 40 sessions (half of them after one exchange with the model) grow the heap by far less than
 * one prompt each, while every place that shows the prompt still has all of it (session_meta in the trace,
 * the system message of each model request). And a new session sees an AGENTS.md edited since the last.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadAgent } from '../../../src/core/compose';
import * as b from '../../../src/core/omnimessage/builders';
import type { Session } from '../../../src/core/agent';
import { listTraceFiles } from '../../../src/core/trace/paths';
import { FakeOpenAIServer } from '../../fakes/openai-server';
import { cleanupTempDirs, tempDir } from '../state/helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: FakeOpenAIServer;
let env: Record<string, string>;
let home: string;

beforeEach(async () => {
  home = await tempDir('shared-prompt-');
  server = new FakeOpenAIServer({ apiKey: 'sk-test' });
  const { baseUrl } = await server.start();
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl, PENGUIN_MODEL: 'fake-model' };
});
afterEach(() => server.stop());
afterAll(cleanupTempDirs);

async function agentWith(agentsMd: string) {
  const first = await loadAgent({ home, env, builtinSkillsDir: null });
  if (!first.ok) throw new Error(first.errors.map((e) => e.message).join('\n'));
  first.state.close();
  await writeFile(first.state.paths.agentsMd, agentsMd);
  const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  return loaded;
}

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** One exchange; what the model was sent as its system message, compared here so no copy is kept. */
async function exchange(s: Session): Promise<{ system: boolean; samePrompt: boolean }> {
  for await (const _ of s.run([b.userText('hello')])) void _;
  const first = (server.requests.splice(0)[0].body as { messages: { role: string; content: string }[] }).messages[0];
  return { system: first.role === 'system', samePrompt: first.content === s.meta.payload.system_prompt };
}

describe('one system prompt per agent', () => {
  it('sessions do not keep their own copy of the prompt, and everything that shows it has all of it', async () => {
    const big = `${'Keep answers short and precise. '.repeat(20_000)}\n`;
    const loaded = await agentWith(big);
    const sessions: Session[] = [await loaded.agent.createSession()];
    const sent = [await exchange(sessions[0])];
    const before = heapAfterGc();
    for (let i = 0; i < 40; i++) {
      const s = await loaded.agent.createSession();
      if (i % 2 === 0) sent.push(await exchange(s));
      sessions.push(s);
    }
    const grown = heapAfterGc() - before;

    const prompt = sessions[1].meta.payload.system_prompt;
    expect(prompt.length).toBeGreaterThan(big.length);
    // V8 keeps a string with any character past U+00FF at two bytes a character (the template has some).
    const promptBytes = prompt.length * (/[^\u0000-\u00ff]/.test(prompt) ? 2 : 1);
    // 40 copies would take 40 prompts; shared, the 40 sessions together cost less than 4.
    expect(grown).toBeLessThan(4 * promptBytes);

    for (const s of sessions) await s.dispose();
    const exchanged = sessions[1];
    expect(sessions[2].meta.payload.system_prompt).not.toBe(exchanged.meta.payload.system_prompt);
    const trace = (await readFile((await listTraceFiles(loaded.state.paths.tracesDir, exchanged.id))[0].path, 'utf8')).split('\n')[0];
    const meta = JSON.parse(trace) as { type: string; payload: { system_prompt: string; session_id: string } };
    expect(meta.type).toBe('session_meta');
    // Byte for byte the JSON of the session's meta (the shared head's JSON is spliced into the line).
    expect(trace).toBe(JSON.stringify(exchanged.meta));
    expect(meta.payload.system_prompt).toBe(exchanged.meta.payload.system_prompt);
    expect(meta.payload.system_prompt).toContain(big.trim());
    expect(meta.payload.system_prompt).toContain(`Session ID: ${exchanged.id}`);
    expect(sent).toHaveLength(21);
    expect(sent.every((m) => m.system && m.samePrompt)).toBe(true);
  });

  it('a new session sees an AGENTS.md edited after the last one was created', async () => {
    const loaded = await agentWith('Speak like a pirate.\n');
    try {
      expect((await loaded.agent.createSession()).meta.payload.system_prompt).toContain('Speak like a pirate.');
      await writeFile(loaded.state.paths.agentsMd, 'Speak like a poet.\n');
      let prompt = '';
      while (!prompt.includes('Speak like a poet.')) {
        await new Promise((r) => setTimeout(r, 10));
        prompt = (await loaded.agent.createSession()).meta.payload.system_prompt;
      }
      expect(prompt).not.toContain('Speak like a pirate.');
    } finally {
      loaded.state.close();
    }
  });
});
