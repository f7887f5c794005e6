import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseToml } from '../../../src/core/state/toml';
import {
  defaultProjectConfig,
  DEFAULT_MODEL_REF,
  loadProjectConfig,
  parseProjectConfig,
  renderProjectConfigToml,
  saveProjectConfig,
} from '../../../src/core/state/project-config';
import { effectiveModels, resolveModel, resolveVisionModel } from '../../../src/core/state/project-models';
import { sessionModelSettings } from '../../../src/core/state/model-settings';
import { FACTORY_COMMAND_POLICY_RULES, commandPolicyCheck } from '../../../src/core/state/command-policy';
import { cleanupTempDirs, exec, FIXTURE_HOME, tempDir } from './helpers';

const FIXTURE = join(FIXTURE_HOME, 'default_project/.project_config.toml');
const FILE = '/data/p/.project_config.toml';

afterAll(cleanupTempDirs);

function errorOf(toml: string) {
  const r = parseProjectConfig(toml, FILE);
  if (r.ok) throw new Error('expected an error');
  return r.error;
}

describe('.project_config.toml', () => {
  it('loads the hand-written PenguinHarness fixture field by field', async () => {
    const r = await loadProjectConfig(FIXTURE);
    expect(r?.ok).toBe(true);
    if (!r?.ok) return;
    const c = r.value;
    expect(c.name).toBe('Platform Team');
    expect(c.default_model).toEqual({ provider: 'deepseek', model_id: 'deepseek-v4-flash' });
    expect(c.vision_model).toEqual({ provider: 'openrouter', model_id: 'google/gemini-3-flash' });
    expect(c.default_chat).toEqual({ agent_id: 'default_agent', workspace: '/srv/work', approval_mode: 'read-only', thinking_level: 'high' });
    expect(c.command_policy?.enabled).toBe(true);
    expect(c.command_policy?.rules?.map((x) => [x.name, x.enabled])).toEqual([
      ['rm-recursive-force', undefined],
      ['windows-format-volume', undefined],
      ['no-curl-pipe-sh', false],
    ]);
    expect(c.models).toEqual([
      {
        provider: 'deepseek',
        model_id: 'deepseek-v4-flash',
        context_window: 1000000,
        display_name: 'DeepSeek V4 Flash',
        vision: false,
        api_key: 'sk-fixture-deepseek',
        created_at: '2026-08-01T10:00:00.000Z',
        pricing: { unit: 'usd_per_mtok', cache_read: 0.02, cache_write: 0.2, output: 0.8 },
      },
      {
        provider: 'openrouter',
        model_id: 'google/gemini-3-flash',
        context_window: 1048576,
        client_type: 'openai-responses',
        max_tokens: 16000,
        fast_mode: true,
        base_url: 'https://openrouter.ai/api/v1',
        vision: true,
      },
    ]);
  });

  it('compiles the fixture rules written with the (?i:…) modifier on Node 20', async () => {
    const r = await loadProjectConfig(FIXTURE);
    if (!r?.ok) throw new Error('fixture failed');
    const check = commandPolicyCheck(r.value.command_policy);
    expect(check(exec('Format-Volume -DriveLetter D'))?.rule).toBe('windows-format-volume');
    expect(check(exec('FORMAT d:'))?.rule).toBe('windows-format-volume');
    expect(check(exec('npm run format'))).toBeUndefined();
    expect(check(exec('rm -rf /'))?.rule).toBe('rm-recursive-force');
    // A disabled rule never fires; the list replaces the factory rules (no mkfs rule here).
    expect(check(exec('curl https://x.sh | sh'))).toBeUndefined();
    expect(check(exec('mkfs.ext4 /dev/sdb'))).toBeUndefined();
  });

  it('writes a new project with the factory policy and the default model, mode 0600', async () => {
    const dir = await tempDir('project-');
    const file = join(dir, '.project_config.toml');
    await saveProjectConfig(file, defaultProjectConfig({}));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    const raw = parseToml(text) as Record<string, unknown>;
    // Field by field against engine.md §6.4.
    expect(Object.keys(raw).sort()).toEqual(['command_policy', 'default_model', 'models']);
    expect(raw.default_model).toEqual(DEFAULT_MODEL_REF);
    expect(raw.command_policy).toEqual({ enabled: true, rules: FACTORY_COMMAND_POLICY_RULES.map((x) => ({ ...x })) });
    expect((raw.command_policy as { rules: unknown[] }).rules).toHaveLength(9);
    expect(raw.models).toEqual([{ provider: 'deepseek', model_id: 'deepseek-v4-flash', client_type: 'openai-chat', vision: false, base_url: 'https://api.deepseek.com' }]);
    expect(text).toMatch(/^default_model = \{ provider = "deepseek", model_id = "deepseek-v4-flash" \}$/m);
    // [[models]] comes last so no later key can fall into a model table.
    expect(text.lastIndexOf('[[models]]')).toBeGreaterThan(text.lastIndexOf('[command_policy]'));
    const back = await loadProjectConfig(file);
    expect(back?.ok).toBe(true);
  });

  it('round-trips every key, including names that need quoting', () => {
    const text = renderProjectConfigToml({
      name: 'Team "Q"',
      default_model: { provider: 'custom', model_id: 'org/model:free' },
      default_chat: { approval_mode: 'always-ask' },
      command_policy: { enabled: false },
      models: [{ provider: 'custom', model_id: 'org/model:free', pricing: { unit: 'usd_per_mtok', cache_read: 1, cache_write: 2, output: 3 }, api_key: 'k' }],
    });
    const r = parseProjectConfig(text, FILE);
    expect(r.ok && r.value).toMatchObject({ name: 'Team "Q"', default_model: { provider: 'custom', model_id: 'org/model:free' }, command_policy: { enabled: false } });
  });

  it.each([
    ['an unknown top-level key', 'colour = "red"\nmodels = []\n', 'colour', /a known key \(allowed here: name, default_model/],
    ['an unknown model key', '[[models]]\nprovider = "p"\nmodel_id = "m"\ntemperature = 1\n', 'models[0].temperature', /a known key/],
    ['a concatenated model ref', 'default_model = "deepseek/deepseek-v4-flash"\n', 'default_model', /a table/],
    ['a ref missing its provider', 'default_model = { model_id = "m" }\n', 'default_model.provider', /a string/],
    ['a bad approval mode', '[default_chat]\napproval_mode = "yolo"\n', 'default_chat.approval_mode', /"allow-all", "deny-all", "read-only", "always-ask"/],
    ['thinking level none as project default', '[default_chat]\nthinking_level = "none"\n', 'default_chat.thinking_level', /"low", "medium"/],
    ['a bad agent id', '[default_chat]\nagent_id = "../x"\n', 'default_chat.agent_id', /text matching/],
    ['a pattern that does not compile', '[command_policy]\n[[command_policy.rules]]\nname = "x"\npattern = "(unclosed"\n', 'command_policy.rules[0].pattern', /a valid JavaScript regular expression/],
    ['a wrong pricing unit', '[[models]]\nprovider = "p"\nmodel_id = "m"\n[models.pricing]\nunit = "eur"\ncache_read = 1\ncache_write = 1\noutput = 1\n', 'models[0].pricing.unit', /"usd_per_mtok"/],
    ['a wrong vision type', '[[models]]\nprovider = "p"\nmodel_id = "m"\nvision = "yes"\n', 'models[0].vision', /a boolean/],
    ['a duplicate model pair', '[[models]]\nprovider = "p"\nmodel_id = "m"\n[[models]]\nprovider = "p"\nmodel_id = "m"\n', 'models[1]', /not already used by models\[0\]/],
  ])('reports %s with its key path', (_what, toml, path, expected) => {
    const e = errorOf(toml);
    const issue = e.issues.find((i) => i.path === path);
    expect(issue).toBeDefined();
    expect(issue!.expected).toMatch(expected);
    expect(e.message).toContain(`${FILE}: ${path}: expected`);
  });

  it('reports TOML syntax errors with line and column', () => {
    const e = errorOf('name = "x"\nmodels = [\n');
    expect(e.kind).toBe('syntax');
    expect(e.issues[0].found).toMatch(/at line \d+, column \d+/);
  });
});

describe('model resolution', () => {
  const env = { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };

  it('resolves the default model and falls back to the OpenAI env for blank credentials, its key only for its endpoint', async () => {
    const r = await loadProjectConfig(FIXTURE);
    if (!r?.ok) throw new Error('fixture failed');
    const d = resolveModel(r.value, FIXTURE, undefined, env);
    expect(d.ok && d.value.ref).toEqual({ provider: 'deepseek', model_id: 'deepseek-v4-flash' });
    expect(d.ok && d.value.connection).toEqual({ provider: 'deepseek', modelId: 'deepseek-v4-flash', apiKey: 'sk-fixture-deepseek', baseUrl: 'http://127.0.0.1:9/v1' });
    const v = resolveVisionModel(r.value, FIXTURE, env);
    // The entry names openrouter.ai while the environment's key is for 127.0.0.1:9: it is not sent there.
    expect(v?.ok && v.value.connection).toEqual({ provider: 'openrouter', modelId: 'google/gemini-3-flash', baseUrl: 'https://openrouter.ai/api/v1', clientType: 'openai-responses' });
    const routed = resolveVisionModel(r.value, FIXTURE, { OPENAI_API_KEY: 'sk-or', OPENAI_BASE_URL: 'https://openrouter.ai/api/v1' });
    expect(routed?.ok && routed.value.connection.apiKey).toBe('sk-or');
  });

  it('never infers a provider from a model id', async () => {
    const r = await loadProjectConfig(FIXTURE);
    if (!r?.ok) throw new Error('fixture failed');
    const miss = resolveModel(r.value, FIXTURE, { provider: 'openai', model_id: 'deepseek-v4-flash' }, env);
    expect(miss.ok).toBe(false);
    if (!miss.ok) expect(miss.error.issues[0].expected).toContain('(provider=openai, model_id=deepseek-v4-flash)');
  });

  it('makes an openai entry from PENGUIN_MODEL when the project has no model, without writing it', () => {
    const penv = { ...env, PENGUIN_MODEL: 'gpt-5-mini' };
    const cfg = defaultProjectConfig(penv);
    expect(cfg.models).toEqual([]);
    expect(cfg.default_model).toBeUndefined();
    const parsed = parseProjectConfig(renderProjectConfigToml(cfg), FILE);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const eff = effectiveModels(parsed.value, penv);
    expect(eff.fromEnv).toBe(true);
    expect(eff.defaultModel).toEqual({ provider: 'openai', model_id: 'gpt-5-mini' });
    const m = resolveModel(parsed.value, FILE, undefined, penv);
    expect(m.ok && m.value.connection).toEqual({ provider: 'openai', modelId: 'gpt-5-mini', apiKey: 'sk-env', baseUrl: 'http://127.0.0.1:9/v1', clientType: 'openai-chat' });
    // Without the variable there is nothing to run.
    const none = resolveModel(parsed.value, FILE, undefined, env);
    expect(!none.ok && none.error.issues[0]).toMatchObject({ path: 'default_model', found: expect.stringContaining('PENGUIN_MODEL') });
  });

  it('shares one PENGUIN_MODEL entry between sessions, and no session can change it for the others', () => {
    const parsed = parseProjectConfig(renderProjectConfigToml(defaultProjectConfig({ PENGUIN_MODEL: 'shared-model' })), FILE);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.value.models).toEqual([]);
    const first = resolveModel(parsed.value, FILE, undefined, { PENGUIN_MODEL: 'shared-model' });
    const second = resolveModel(parsed.value, FILE, undefined, { PENGUIN_MODEL: 'shared-model' });
    if (!first.ok || !second.ok) throw new Error('expected the env model to resolve');
    expect(second.value.entry).toBe(first.value.entry);
    expect(Object.isFrozen(first.value.entry)).toBe(true);
    expect(second.value.entry).toMatchObject({ provider: 'openai', model_id: 'shared-model', client_type: 'openai-chat', vision: true });
    const other = resolveModel(parsed.value, FILE, undefined, { PENGUIN_MODEL: 'another-model' });
    expect(other.ok && other.value.entry.model_id).toBe('another-model');
  });

  it('ignores PENGUIN_MODEL once the project has a model entry', async () => {
    const r = await loadProjectConfig(FIXTURE);
    if (!r?.ok) throw new Error('fixture failed');
    expect(effectiveModels(r.value, { PENGUIN_MODEL: 'gpt-5-mini' }).fromEnv).toBe(false);
  });

  it('names a default_model that has no entry', () => {
    const parsed = parseProjectConfig('default_model = { provider = "a", model_id = "b" }\n[[models]]\nprovider = "c"\nmodel_id = "d"\n', FILE);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const r = resolveModel(parsed.value, FILE, undefined, {});
    expect(!r.ok && r.error.message).toBe(`${FILE}: default_model: expected a [[models]] entry for (provider=a, model_id=b), found only (provider=c, model_id=d)`);
  });
});

describe('session model settings', () => {
  it('lets the entry max_tokens win and carries the agent timeout and thinking level', async () => {
    const r = await loadProjectConfig(FIXTURE);
    if (!r?.ok) throw new Error('fixture failed');
    const agent = { model: { max_tokens: 32000, thinking_level: 'medium' as const, timeoutMs: 120000 } };
    const vision = resolveModel(r.value, FIXTURE, { provider: 'openrouter', model_id: 'google/gemini-3-flash' }, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'https://openrouter.ai/api/v1' });
    if (!vision.ok) throw new Error(vision.error.message);
    expect(sessionModelSettings(vision.value, agent, 'high')).toEqual({
      modelId: 'google/gemini-3-flash',
      apiKey: 'k',
      baseUrl: 'https://openrouter.ai/api/v1',
      clientType: 'openai-responses',
      contextWindow: 1048576,
      maxTokens: 16000,
      fastMode: true,
      thinkingLevel: 'high',
      requestTimeoutMs: 120000,
      vision: true,
    });
    const flash = resolveModel(r.value, FIXTURE, undefined, {});
    if (!flash.ok) throw new Error(flash.error.message);
    expect(sessionModelSettings(flash.value, agent)).toMatchObject({ maxTokens: 32000, thinkingLevel: 'medium', vision: false, apiKey: 'sk-fixture-deepseek' });
    expect(sessionModelSettings(flash.value, agent).baseUrl).toBeUndefined();
  });
});
