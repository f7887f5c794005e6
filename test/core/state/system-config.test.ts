import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  defaultSystemConfig,
  KERNEL_VERSION,
  parseSystemConfig,
  renderSystemConfigYaml,
  resolveSystemConfig,
  resolveThinkingLevel,
} from '../../../src/core/state/system-config';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/core/state/prompts/system-template';
import { DEFAULT_COMPACTION_PROMPT, DEFAULT_MEMORY_PROMPT, DEFAULT_VAULT_PROMPT } from '../../../src/core/state/prompts/section-prompts';
import { FIXTURE_AGENT_STATE, TEST_TOOLS } from './helpers';

const FILE = '/data/p/agents/a/agent_state/system_config.yaml';

function errorOf(yaml: string) {
  const r = parseSystemConfig(yaml, FILE);
  if (r.ok) throw new Error('expected an error');
  return r.error;
}

describe('system_config.yaml', () => {
  it('writes every key of engine.md §6.2 with its default and reads it back unchanged', () => {
    const cfg = defaultSystemConfig(TEST_TOOLS);
    const text = renderSystemConfigYaml(cfg);
    const raw = parseYaml(text) as Record<string, unknown>;
    expect(Object.keys(raw)).toEqual(['version', 'kernel_version', 'system_prompt', 'max_turns', 'model', 'compaction', 'memory', 'vault', 'skills', 'schedules', 'tools']);
    expect(raw).toMatchObject({
      version: 1,
      kernel_version: KERNEL_VERSION,
      system_prompt: DEFAULT_SYSTEM_PROMPT,
      max_turns: -1,
      model: { max_tokens: 32000, thinking_level: 'medium', timeoutMs: 120000 },
      compaction: { max_context_length: 256000, max_session_turns: -1, mode: 'summarize', prompt: DEFAULT_COMPACTION_PROMPT },
      memory: { enabled: true, prompt: DEFAULT_MEMORY_PROMPT },
      vault: { enabled: true, prompt: DEFAULT_VAULT_PROMPT },
      skills: { enabled: true },
      schedules: { enabled: true },
      tools: { builtin: TEST_TOOLS, mcpServers: [] },
    });
    const back = parseSystemConfig(text, FILE);
    expect(back).toEqual({ ok: true, value: cfg });
    // Prompts are stored as literal blocks, readable by hand.
    expect(text).toMatch(/^system_prompt: \|-?\n {2}# Role/m);
  });

  it('loads the hand-written PenguinHarness fixture', async () => {
    const text = await readFile(join(FIXTURE_AGENT_STATE, 'system_config.yaml'), 'utf8');
    const r = parseSystemConfig(text, FILE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ name: 'Ops Helper', version: 3, kernel_version: '2026-08-21', max_turns: 40, model: { max_tokens: 16000, timeoutMs: 300000 } });
    expect(r.value.model?.thinking_level).toBeUndefined();
    expect(r.value.tools?.builtin?.map((t) => t.name)).toEqual(['read_file', 'exec_command']);
    expect(r.value.tools?.mcpServers).toEqual([{ name: 'github', config: { command: 'npx', args: ['-y', '@example/github-mcp'], permission: 'auto' } }]);
  });

  it('reports YAML syntax errors with the file and line', () => {
    const e = errorOf('system_prompt: "x"\nmodel: [\n');
    expect(e.kind).toBe('syntax');
    expect(e.file).toBe(FILE);
    expect(e.issues[0].path).toBe('');
    expect(e.message).toMatch(new RegExp(`^${FILE}: \\(file\\): expected valid YAML, found .*line \\d+`));
  });

  it('reports duplicate keys as syntax errors', () => {
    expect(errorOf('system_prompt: a\nsystem_prompt: b\n').kind).toBe('syntax');
  });

  it.each([
    ['an unknown top-level key', 'system_prompt: x\ntemperature: 1\n', 'temperature', /a known key \(allowed here: name, description, version/, /unknown key "temperature"/],
    ['an unknown nested key', 'system_prompt: x\nmodel:\n  temperature: 1\n', 'model.temperature', /allowed here: max_tokens, thinking_level, timeoutMs/, /unknown key/],
    ['a missing system_prompt', 'max_turns: 3\n', 'system_prompt', /a string/, /nothing \(the key is missing\)/],
    ['a wrong type', 'system_prompt: x\nmax_turns: "10"\n', 'max_turns', /a number/, /string "10"/],
    ['a non-integer', 'system_prompt: x\nmodel:\n  max_tokens: 1.5\n', 'model.max_tokens', /integer|int/, /number 1.5/],
    ['a bad enum', 'system_prompt: x\nmodel:\n  thinking_level: extreme\n', 'model.thinking_level', /one of "none", "low", "medium", "high", "xhigh", "max"/, /string "extreme"/],
    ['max_turns 0', 'system_prompt: x\nmax_turns: 0\n', 'max_turns', /a positive integer or -1/, /number 0/],
    ['a bad compaction mode', 'system_prompt: x\ncompaction:\n  mode: squash\n', 'compaction.mode', /"summarize", "discard"/, /string "squash"/],
    ['a bad toggle type', 'system_prompt: x\nvault:\n  enabled: "yes"\n', 'vault.enabled', /a boolean/, /string "yes"/],
    ['a bad tool permission', 'system_prompt: x\ntools:\n  builtin:\n    - {name: a, description: d}\n    - {name: b, description: d, permission: x}\n', 'tools.builtin[1].permission', /"r", "rw"/, /string "x"/],
    ['an unknown tool key', 'system_prompt: x\ntools:\n  builtin:\n    - {name: a, description: d, perm: r}\n', 'tools.builtin[0].perm', /allowed here: name, description, parameters/, /unknown key "perm"/],
    ['a bad MCP server name', 'system_prompt: x\ntools:\n  mcpServers:\n    - {name: "-bad", config: {}}\n', 'tools.mcpServers[0].name', /text matching/, /string "-bad"/],
    ['null where a table belongs', 'system_prompt: x\ntools:\n', 'tools', /a table/, /null/],
  ])('reports %s with its key path', (_what, yaml, path, expected, found) => {
    const e = errorOf(yaml);
    expect(e.kind).toBe('invalid');
    const issue = e.issues.find((i) => i.path === path);
    expect(issue).toBeDefined();
    expect(issue!.expected).toMatch(expected);
    expect(issue!.found).toMatch(found);
    expect(e.message).toContain(`${FILE}: ${path}: expected `);
  });

  it('rejects an empty file', () => {
    const e = errorOf('');
    expect(e.issues[0]).toMatchObject({ path: '', found: 'an empty file' });
  });

  it('fills omitted keys at use without merging written ones', () => {
    const r = parseSystemConfig('system_prompt: hi\nmodel:\n  max_tokens: 1000\ntools:\n  builtin:\n    - {name: only_tool, description: d}\nvault:\n  enabled: false\n', FILE);
    if (!r.ok) throw new Error(r.error.message);
    const cfg = resolveSystemConfig(r.value, { defaultBuiltinTools: TEST_TOOLS });
    expect(cfg.model).toEqual({ max_tokens: 1000, thinking_level: 'medium', timeoutMs: 120000 });
    expect(cfg.max_turns).toBe(-1);
    expect(cfg.version).toBe(1);
    expect(cfg.compaction).toEqual({ max_context_length: 256000, max_session_turns: -1, mode: 'summarize', prompt: DEFAULT_COMPACTION_PROMPT });
    expect(cfg.vault).toEqual({ enabled: false, prompt: DEFAULT_VAULT_PROMPT });
    expect(cfg.skills.enabled).toBe(true);
    // A written tools.builtin replaces the default list wholesale.
    expect(cfg.tools.builtin).toEqual([{ name: 'only_tool', description: 'd' }]);
    expect(cfg.tools.mcpServers).toEqual([]);
    const omitted = resolveSystemConfig({ system_prompt: 'x' }, { defaultBuiltinTools: TEST_TOOLS });
    expect(omitted.tools.builtin).toEqual(TEST_TOOLS);
  });

  it('resolves the thinking chain: agent > project default_chat > medium', () => {
    expect(resolveThinkingLevel({ model: { thinking_level: 'low' } }, 'high')).toBe('low');
    expect(resolveThinkingLevel({ model: {} }, 'high')).toBe('high');
    expect(resolveThinkingLevel({}, undefined)).toBe('medium');
    expect(resolveSystemConfig({ system_prompt: 'x' }, { defaultBuiltinTools: [], projectThinkingLevel: 'xhigh' }).model.thinking_level).toBe('xhigh');
  });
});
