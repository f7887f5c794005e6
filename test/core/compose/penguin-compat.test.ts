/**
 * One data dir, two systems: a session started on a model that only PENGUIN_MODEL names leaves that
 * model in `[[models]]` (PenguinHarness resumes a session only when its project file lists the pair), and
 * a project laid out as PenguinHarness writes it after its default model was removed (`[[models]]`, no
 * `default_model`) loads: its sessions resume on their own model, new ones take PENGUIN_MODEL or the
 * first entry, and the log says which.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseToml as parse, stringifyToml as stringify } from '../../../src/core/state/toml';
import { loadAgent } from '../../../src/core/compose';
import * as b from '../../../src/core/omnimessage/builders';
import { FakeOpenAIServer } from '../../fakes/openai-server';

let home: string;
let workspace: string;
let server: FakeOpenAIServer;
let base: Record<string, string>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'pg-compat-'));
  workspace = await mkdtemp(join(tmpdir(), 'pg-compat-ws-'));
  server = new FakeOpenAIServer({ apiKey: 'sk-test' });
  const { baseUrl } = await server.start();
  base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl };
});
afterEach(async () => {
  await server.stop();
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

const projectFile = () => join(home, 'default_project', '.project_config.toml');
const listed = async () => (parse(await readFile(projectFile(), 'utf8')) as { models?: Array<Record<string, unknown>> }).models ?? [];

/** PenguinHarness's resume check: the session's (provider, model_id) must be an entry of the project file. */
async function penguinHarnessCanResume(provider: string, modelId: string): Promise<boolean> {
  return (await listed()).some((m) => m.provider === provider && m.model_id === modelId);
}

it('records a PENGUIN_MODEL-only model in [[models]] when a session starts on it, once and without a key', async () => {
  const env = { ...base, PENGUIN_MODEL: 'gpt-compat' };
  const loaded = await loadAgent({ home, env, builtinSkillsDir: null });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  expect(await penguinHarnessCanResume('openai', 'gpt-compat')).toBe(false);
  const session = await loaded.agent.createSession({ workspace });
  expect(session.meta.payload).toMatchObject({ provider: 'openai', model_id: 'gpt-compat' });
  expect(await penguinHarnessCanResume('openai', 'gpt-compat')).toBe(true);
  await loaded.agent.createSession({ workspace });
  expect(await listed()).toEqual([{ provider: 'openai', model_id: 'gpt-compat', client_type: 'openai-chat', vision: true }]);
  expect(await readFile(projectFile(), 'utf8')).not.toContain('sk-test');
  // the next start reads its own recorded entry as the default, as before
  const again = await loadAgent({ home, env, builtinSkillsDir: null });
  expect(again.ok && again.state.resolveModel().ok && again.state.resolveModel()).toMatchObject({ value: { entry: { provider: 'openai', model_id: 'gpt-compat' } } });
});

describe('a project PenguinHarness left without default_model', () => {
  const entries = [
    { provider: 'deepseek', model_id: 'deepseek-v4-flash', context_window: 128000, client_type: 'openai-chat', vision: false, base_url: 'http://127.0.0.1:9/v1' },
    { provider: 'openai', model_id: 'gpt-x', context_window: 200000, client_type: 'openai-chat', display_name: 'GPT X', pricing: { unit: 'usd_per_mtok', cache_read: 0.1, cache_write: 1, output: 4 } },
  ];
  const sessionId = 'session-2026-11-30-10-00-00-0a1b2c3d';

  beforeEach(async () => {
    await mkdir(join(home, 'default_project'), { recursive: true });
    await writeFile(projectFile(), stringify({ command_policy: { enabled: true, rules: [] }, models: entries }), { mode: 0o600 });
    // a session PenguinHarness ran on the second model, its trace as the engine writes it
    const traces = join(home, 'default_project', 'agents', 'default_agent', 'traces', '2026-11-30');
    await mkdir(traces, { recursive: true });
    const meta = b.sessionMeta({ session_id: sessionId, provider: 'openai', model_id: 'gpt-x', model_context_window: 200000, system_prompt: 'You help.', agent_state: join(home, 'default_project', 'agents', 'default_agent', 'agent_state'), workspace });
    const lines = [meta, b.userText('hello'), b.requestBegin(), b.assistantText('Hi there.'), b.requestEnd('completed')];
    await writeFile(join(traces, `${sessionId}_001.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });

  it('loads; resumes sessions on their own model; new sessions take the first entry and the log says so', async () => {
    const warnings: string[] = [];
    const loaded = await loadAgent({ home, env: base, builtinSkillsDir: null, warn: (m) => warnings.push(m) });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const resumed = await loaded.agent.resumeSession(sessionId);
    expect(resumed.ok && resumed.session.model).toMatchObject({ provider: 'openai', modelId: 'gpt-x' });
    const fresh = await loaded.agent.createSession({ workspace });
    expect(fresh.meta.payload).toMatchObject({ provider: 'deepseek', model_id: 'deepseek-v4-flash' });
    expect(warnings).toContainEqual(expect.stringMatching(/has no default_model: new sessions use deepseek\/deepseek-v4-flash \(the first \[\[models\]\] entry\)/));
    expect(await listed()).toHaveLength(2);
  });

  it('with PENGUIN_MODEL naming an entry, new sessions take that one', async () => {
    const warnings: string[] = [];
    const loaded = await loadAgent({ home, env: { ...base, PENGUIN_MODEL: 'gpt-x' }, builtinSkillsDir: null, warn: (m) => warnings.push(m) });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const fresh = await loaded.agent.createSession({ workspace });
    expect(fresh.meta.payload).toMatchObject({ provider: 'openai', model_id: 'gpt-x' });
    expect(warnings).toContainEqual(expect.stringMatching(/new sessions use openai\/gpt-x \(PENGUIN_MODEL\)/));
    expect(await listed()).toHaveLength(2);
  });
});
