import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseToml } from '../../../src/core/state/toml';
import { loadAgentState, type AgentState } from '../../../src/core/state/agent-state';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/core/state/prompts/system-template';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { parseSystemConfig } from '../../../src/core/state/system-config';
import { cleanupTempDirs, exec, fixtureHome, tempDir, TEST_TOOLS } from './helpers';

afterAll(cleanupTempDirs);
const REPO_SKILLS = join(__dirname, '../../../skills');

async function must(p: ReturnType<typeof loadAgentState>): Promise<AgentState> {
  const r = await p;
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.value;
}

/** path → sha256 of every file under a directory. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(await readFile(p)).digest('hex');
    }
  };
  await walk(dir);
  return out;
}

describe('first use', () => {
  it('creates default_project and default_agent with defaults in the PenguinHarness layout', async () => {
    const home = await tempDir('home-');
    const s = await must(loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS, builtinSkillsDir: REPO_SKILLS }));
    expect(s.created).toEqual({ project: true, agent: true });
    const agent = join(home, 'default_project', 'agents', 'default_agent');
    expect(s.paths.stateDir).toBe(join(agent, 'agent_state'));

    const projectFile = join(home, 'default_project', '.project_config.toml');
    expect((await stat(projectFile)).mode & 0o777).toBe(0o600);
    const project = parseToml(await readFile(projectFile, 'utf8')) as Record<string, unknown>;
    expect(project.default_model).toEqual({ provider: 'deepseek', model_id: 'deepseek-v4-flash' });

    const cfg = parseYaml(await readFile(join(agent, 'agent_state', 'system_config.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(cfg)).toEqual(['version', 'kernel_version', 'system_prompt', 'max_turns', 'model', 'compaction', 'memory', 'vault', 'skills', 'schedules', 'tools']);
    expect(cfg.system_prompt).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(cfg.tools).toEqual({ builtin: TEST_TOOLS, mcpServers: [] });
    expect(await readFile(join(agent, 'agent_state', 'AGENTS.md'), 'utf8')).toBe('');
    expect(await readFile(join(agent, 'agent_state', 'memory', 'user', 'MEMORY.md'), 'utf8')).toBe('');
    expect((await readdir(join(agent, 'agent_state', 'skills'))).sort()).toEqual(['chat-replies', 'safe-shell']);
    for (const d of ['tools', 'skills', 'memory']) expect((await stat(join(agent, 'agent_state', d))).isDirectory()).toBe(true);
    expect((await stat(join(agent, 'scratchpad'))).isDirectory()).toBe(true);

    expect(s.skills.map((x) => x.name)).toEqual(['chat-replies', 'safe-shell']);
    expect(s.vault).toEqual({});
    expect(s.thinkingLevel).toBe('medium');
    expect(s.defaultApprovalMode).toBe('allow-all');
    expect(s.toolConfig).toEqual({ customTools: TEST_TOOLS, mcpServers: [] });
    expect(s.commandPolicy(exec('rm -rf /'))?.rule).toBe('rm-recursive-force');

    const again = await must(loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS }));
    expect(again.created).toEqual({ project: false, agent: false });
  });

  it('writes the engine\'s 11 default builtin tools by default, valid under the strict schema', async () => {
    const home = await tempDir('tools-');
    const s = await must(loadAgentState({ home, env: {}, builtinSkillsDir: null }));
    expect(s.toolConfig.customTools.map((t) => t.name)).toEqual(DEFAULT_BUILTIN_TOOLS.map((t) => t.name));
    expect(s.toolConfig.customTools).toHaveLength(11);
    const text = await readFile(s.paths.systemConfig, 'utf8');
    const back = parseSystemConfig(text, s.paths.systemConfig);
    expect(back.ok && back.value.tools?.builtin).toEqual(DEFAULT_BUILTIN_TOOLS);
  });

  it('uses PENGUIN_HOME when no home is given', async () => {
    const home = await tempDir('envhome-');
    const s = await must(loadAgentState({ env: { PENGUIN_HOME: home }, defaultBuiltinTools: [], builtinSkillsDir: null }));
    expect(s.paths.projectDir).toBe(join(home, 'default_project'));
    expect(await readdir(s.paths.skillsDir)).toEqual([]);
  });

  it('does not create anything with create: false', async () => {
    const home = await tempDir('nocreate-');
    const r = await loadAgentState({ home, create: false, env: {}, defaultBuiltinTools: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.issues[0].expected)).toEqual([expect.stringContaining('project config'), expect.stringContaining('agent does not exist')]);
    expect(await readdir(home)).toEqual([]);
  });

  it('dryRun writes nothing and resolves what a first use would create', async () => {
    for (const env of [{}, { PENGUIN_MODEL: 'gpt-test', OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }]) {
      const home = await tempDir('dryrun-');
      const dry = await must(loadAgentState({ home, dryRun: true, env, defaultBuiltinTools: TEST_TOOLS }));
      expect(await readdir(home)).toEqual([]);
      expect(dry.created).toEqual({ project: true, agent: true });
      const real = await must(loadAgentState({ home, env, defaultBuiltinTools: TEST_TOOLS, builtinSkillsDir: null }));
      expect(real.created).toEqual({ project: true, agent: true });
      expect(dry.project).toEqual(real.project);
      expect(dry.config).toEqual(real.config);
      expect(dry.resolveModel()).toEqual(real.resolveModel());
      const before = await snapshot(home);
      const again = await must(loadAgentState({ home, dryRun: true, env, defaultBuiltinTools: TEST_TOOLS }));
      expect(again.created).toEqual({ project: false, agent: false });
      expect(await snapshot(home)).toEqual(before);
    }
  });

  it('rejects ids that could leave their directory', async () => {
    const home = await tempDir('ids-');
    const r = await loadAgentState({ home, agentId: '../x', env: {}, defaultBuiltinTools: [] });
    expect(!r.ok && r.errors[0].issues[0]).toMatchObject({ path: 'agentId', found: 'string "../x"' });
  });
});

describe('loading a PenguinHarness home', () => {
  it('loads the fixture without changing any file', async () => {
    const home = await fixtureHome();
    const before = await snapshot(home);
    // Default options (create on first use) must not touch an existing agent either.
    const s = await must(loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS }));
    expect(s.created).toEqual({ project: false, agent: false });
    expect(await snapshot(home)).toEqual(before);

    expect(s.config.name).toBe('Ops Helper');
    expect(s.config.max_turns).toBe(40);
    // Agent omits model.thinking_level, so the project's [default_chat] level applies.
    expect(s.thinkingLevel).toBe('high');
    expect(s.config.model).toEqual({ max_tokens: 16000, thinking_level: 'high', timeoutMs: 300000 });
    expect(s.defaultApprovalMode).toBe('read-only');
    expect(s.toolConfig.customTools.map((t) => t.name)).toEqual(['read_file', 'exec_command']);
    expect(s.toolConfig.mcpServers.map((m) => m.name)).toEqual(['github']);
    expect(s.vault).toEqual({ GITHUB_TOKEN: 'ghp_fixture_token_value', API_BASE: 'https://api.example.com' });
    expect(s.skills.map((x) => x.name)).toEqual(['release_notes', 'web-research']);
    expect(s.scheduleNames).toEqual(['daily-report', 'ping']);
    expect(s.agentsMd).toContain('on-call rota');
    const model = s.resolveModel();
    expect(model.ok && model.value.entry).toMatchObject({ provider: 'deepseek', model_id: 'deepseek-v4-flash', vision: false, context_window: 1000000 });
    expect(s.visionModel()?.ok).toBe(true);
    expect(s.commandPolicy(exec('FORMAT c:'))?.rule).toBe('windows-format-volume');
  });

  it('assembles the system prompt from the fixture files', async () => {
    const home = await fixtureHome();
    const s = await must(loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS, create: false }));
    const ws = join(home, 'work', 'repo');
    await mkdir(ws, { recursive: true });
    const prompt = await s.systemPrompt({ sessionId: 'session-2026-11-30-10-00-00-deadbeef', workspaceDir: ws, provider: 'deepseek', modelId: 'deepseek-v4-flash', now: new Date(2026, 10, 30), platform: 'linux', osVersion: 'Linux 6', shell: 'bash' });
    expect(prompt).toContain('[developer_instructions]\nAlways answer with the on-call rota in mind.\nLiteral tokens here must stay literal: {{CWD}} and {{VAULT}}.\n[/developer_instructions]');
    expect(prompt).toContain('# Vault\nSecrets are set as environment variables:\n- API_BASE\n- GITHUB_TOKEN');
    expect(prompt).not.toContain('ghp_fixture_token_value');
    expect(prompt).toContain('# Skills\n- `release_notes` — Use when: someone asks for release notes from merged pull requests\n- `web-research` — Search the web and cite sources for factual questions');
    expect(prompt).toContain('User index:\n- [Prefers pnpm](prefers-pnpm.md) — use pnpm, never npm, in their repos');
    expect(prompt).toMatch(/Workspace notes live in .*\/memory\/repo-[0-9a-f]{8}\.\n\(empty: nothing has been saved here yet\)/);
    // schedules.enabled is false in the fixture.
    expect(prompt).not.toContain('Scheduled Tasks');
    expect(prompt).toContain(`- App Data Dir: ${join(home, 'default_project')}\n- Agent ID: default_agent\n- CWD: ${ws}\n- Provider: deepseek\n- Model ID: deepseek-v4-flash\n- Session ID: session-2026-11-30-10-00-00-deadbeef`);
    expect(prompt).toContain('- Date: 2026-11-30');
  });

  it('loads an agent whose config has only a system_prompt, defaulting the rest', async () => {
    const home = await fixtureHome();
    const s = await must(loadAgentState({ home, agentId: 'minimal_agent', env: {}, defaultBuiltinTools: TEST_TOOLS, create: false }));
    expect(s.config.tools.builtin).toEqual(TEST_TOOLS);
    expect(s.config.model).toEqual({ max_tokens: 32000, thinking_level: 'high', timeoutMs: 120000 });
    expect(s.config.compaction.max_context_length).toBe(256000);
    const prompt = await s.systemPrompt({ sessionId: 'session-2026-11-30-10-00-00-deadbeef', workspaceDir: '/nowhere', provider: 'p', modelId: 'm' });
    expect(prompt).toContain('Secrets available as environment variables:\n(no variables stored)\n\n# Skills\n(no skills installed)');
    expect(prompt).toContain('Session session-2026-11-30-10-00-00-deadbeef in /nowhere');
  });

  it('reports every invalid file at once, with file and key path', async () => {
    const home = await fixtureHome();
    const state = join(home, 'default_project', 'agents', 'default_agent', 'agent_state');
    await writeFile(join(state, 'system_config.yaml'), 'system_prompt: x\nmodel:\n  thinking_level: turbo\n');
    await writeFile(join(state, '.vault.toml'), 'bad-key = "v"\n');
    await writeFile(join(home, 'default_project', '.project_config.toml'), 'default_model = "deepseek/deepseek-v4-flash"\n');
    const r = await loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [relative(home, e.file), e.issues[0].path])).toEqual([
      ['default_project/.project_config.toml', 'default_model'],
      ['default_project/agents/default_agent/agent_state/system_config.yaml', 'model.thinking_level'],
      ['default_project/agents/default_agent/agent_state/.vault.toml', '"bad-key"'],
    ]);
  });
});

describe('filesystem failures', () => {
  it('returns an io error instead of throwing when the home cannot be written', async () => {
    const base = await tempDir('blocked-');
    const home = join(base, 'home');
    await writeFile(home, 'a file where the data root should be');
    const r = await loadAgentState({ home, env: {}, builtinSkillsDir: null });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ kind: 'io', issues: [{ found: expect.stringMatching(/^(ENOTDIR|EEXIST)/) }] });
  });
});
