import { MARKER_TAGS } from '../../../src/core/omnimessage/markers';
import { assembleSystemPrompt, expandOnce, type PromptInputs } from '../../../src/core/state/prompt-assembly';
import { ALL_PLACEHOLDERS, ENV_PLACEHOLDERS, INNER_PLACEHOLDERS, SECTION_PLACEHOLDERS } from '../../../src/core/state/placeholders';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/core/state/prompts/system-template';
import {
  DEFAULT_MEMORY_PROMPT,
  DEFAULT_MEMORY_WORKSPACE_PROMPT,
  DEFAULT_SCHEDULES_PROMPT,
  DEFAULT_SKILLS_PROMPT,
  DEFAULT_VAULT_PROMPT,
  EMPTY_MEMORY_INDEX_NOTE,
  EMPTY_SCHEDULES_NOTE,
  EMPTY_SKILLS_NOTE,
  EMPTY_VAULT_NOTE,
} from '../../../src/core/state/prompts/section-prompts';
import { localDate, sessionEnvironment } from '../../../src/core/state/prompt-environment';

const ENV = {
  platform: 'linux',
  osVersion: 'Linux 6.8.0',
  shell: 'bash',
  date: '2026-11-30',
  projectDir: '/data/default_project',
  agentId: 'default_agent',
  cwd: '/work/repo',
  provider: 'deepseek',
  modelId: 'deepseek-v4-flash',
  sessionId: 'session-2026-11-30-10-00-00-deadbeef',
};

const on = (prompt: string) => ({ enabled: true, prompt });
function inputs(over: Partial<PromptInputs> = {}): PromptInputs {
  return {
    template: DEFAULT_SYSTEM_PROMPT,
    agentsMd: 'Be kind to the on-call engineer.\n',
    sections: {
      vault: on(DEFAULT_VAULT_PROMPT),
      skills: on(DEFAULT_SKILLS_PROMPT),
      memory: { enabled: true, prompt: DEFAULT_MEMORY_PROMPT, workspace_prompt: DEFAULT_MEMORY_WORKSPACE_PROMPT },
      schedules: on(DEFAULT_SCHEDULES_PROMPT),
    },
    env: ENV,
    vaultKeys: ['GITHUB_TOKEN', 'API_BASE'],
    skills: [{ name: 'web-research', description: 'Search and cite', version: 1 }],
    scheduleNames: ['daily-report'],
    memory: {
      userDir: '/data/default_project/agents/default_agent/agent_state/memory/user',
      userIndex: '- [Prefers pnpm](prefers-pnpm.md) — pnpm only\n',
      workspace: { key: 'repo-12345678', dir: '/mem/repo-12345678', index: '- [Tests](tests.md) — real db\n' },
    },
    ...over,
  };
}

describe('the default template', () => {
  it('ends with developer instructions, the four sections and the Environment lines', () => {
    const t = DEFAULT_SYSTEM_PROMPT;
    const dev = t.indexOf('[developer_instructions]\n');
    expect(dev).toBeGreaterThan(0);
    expect(t.indexOf('{{AGENTS_MD}}')).toBeGreaterThan(dev);
    expect(t.indexOf('[/developer_instructions]')).toBeGreaterThan(t.indexOf('{{AGENTS_MD}}'));
    const order = ['[/developer_instructions]', '{{VAULT}}', '{{SKILLS}}', '{{MEMORY}}', '{{SCHEDULES}}', '# Environment'].map((s) => t.indexOf(s));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(t.slice(t.indexOf('# Environment'))).toBe(
      ['# Environment', '- Platform: {{PLATFORM}}', '- OS Version: {{OS_VERSION}}', '- Shell: {{SHELL}}', '- Date: {{DATE}}', '- App Data Dir: {{PROJECT_DIR}}', '- Agent ID: {{AGENT_ID}}', '- CWD: {{CWD}}', '- Provider: {{PROVIDER}}', '- Model ID: {{MODEL_ID}}', '- Session ID: {{SESSION_ID}}'].join('\n'),
    );
  });

  it('explains every engine marker in its System markers section', () => {
    const markers = DEFAULT_SYSTEM_PROMPT.slice(DEFAULT_SYSTEM_PROMPT.indexOf('# System markers'), DEFAULT_SYSTEM_PROMPT.indexOf('# Files and places'));
    for (const tag of MARKER_TAGS.filter((t) => t !== 'summary' && t !== 'developer_instructions')) expect(markers).toContain(`[${tag}]`);
    expect(markers).toContain('[attached image:');
  });
});

describe('assembleSystemPrompt', () => {
  it('expands every placeholder of engine.md §6.2', () => {
    expect(ALL_PLACEHOLDERS).toHaveLength(1 + SECTION_PLACEHOLDERS.length + INNER_PLACEHOLDERS.length + ENV_PLACEHOLDERS.length);
    const template = ALL_PLACEHOLDERS.map((p) => `<${p}>`).join('\n');
    const sections = {
      vault: on('V[{{VAULT_KEYS}}]'),
      skills: on('S[{{SKILL_METADATA}}]'),
      memory: { enabled: true, prompt: 'M[{{USER_MEMORY_INDEX}}]', workspace_prompt: 'W[{{WORKSPACE_MEMORY_DIR}}|{{WORKSPACE_MEMORY_INDEX}}]' },
      schedules: on('T[{{SCHEDULE_LIST}}]'),
    };
    const out = assembleSystemPrompt(inputs({ template, sections }));
    expect(out.split('\n')).toEqual([
      '<Be kind to the on-call engineer.>',
      '<V[- GITHUB_TOKEN',
      '- API_BASE]>',
      '<S[- `web-research` — Search and cite]>',
      '<M[- [Prefers pnpm](prefers-pnpm.md) — pnpm only]',
      '',
      'W[/mem/repo-12345678|- [Tests](tests.md) — real db]>',
      '<T[- daily-report]>',
      '<- GITHUB_TOKEN',
      '- API_BASE>',
      '<- `web-research` — Search and cite>',
      '<- daily-report>',
      '<- [Prefers pnpm](prefers-pnpm.md) — pnpm only>',
      '<- [Tests](tests.md) — real db>',
      '</mem/repo-12345678>',
      '<linux>',
      '<Linux 6.8.0>',
      '<bash>',
      '<2026-11-30>',
      '</data/default_project>',
      '<default_agent>',
      '</work/repo>',
      '<deepseek>',
      '<deepseek-v4-flash>',
      '<session-2026-11-30-10-00-00-deadbeef>',
    ]);
  });

  it('leaves no known placeholder in the assembled default prompt', () => {
    const out = assembleSystemPrompt(inputs());
    for (const p of ALL_PLACEHOLDERS) expect(out).not.toContain(p);
    expect(out).toContain('[developer_instructions]\nInstructions from this agent');
    expect(out).toContain('Be kind to the on-call engineer.\n[/developer_instructions]');
    expect(out).toContain('Variables:\n- GITHUB_TOKEN\n- API_BASE');
    expect(out).toContain('Installed skills:\n- `web-research` — Search and cite');
    expect(out).toContain('Current tasks:\n- daily-report');
    expect(out).toContain('Directory: `/mem/repo-12345678`');
    expect(out).toMatch(/# Environment\n- Platform: linux\n- OS Version: Linux 6.8.0\n- Shell: bash\n- Date: 2026-11-30\n- App Data Dir: \/data\/default_project\n- Agent ID: default_agent\n- CWD: \/work\/repo\n- Provider: deepseek\n- Model ID: deepseek-v4-flash\n- Session ID: session-2026-11-30-10-00-00-deadbeef$/);
  });

  it('expands in a single pass: placeholders inside injected text stay literal', () => {
    const out = assembleSystemPrompt(
      inputs({
        agentsMd: 'Run in {{CWD}}; see {{VAULT}} and {{AGENTS_MD}} and {{SESSION_ID}}.',
        skills: [{ name: 'tricky', description: 'mentions {{AGENT_ID}} and {{SKILLS}}', version: 1 }],
        memory: { userDir: '/u', userIndex: '- note about {{SESSION_ID}} and {{MEMORY}}' },
        sections: {
          vault: on('# Vault\n{{VAULT_KEYS}}\nnested {{SKILLS}} stays'),
          skills: on(DEFAULT_SKILLS_PROMPT),
          memory: { enabled: true, prompt: 'idx: {{USER_MEMORY_INDEX}}', workspace_prompt: '' },
          schedules: on(DEFAULT_SCHEDULES_PROMPT),
        },
      }),
    );
    expect(out).toContain('Run in {{CWD}}; see {{VAULT}} and {{AGENTS_MD}} and {{SESSION_ID}}.');
    expect(out).toContain('- `tricky` — mentions {{AGENT_ID}} and {{SKILLS}}');
    expect(out).toContain('idx: - note about {{SESSION_ID}} and {{MEMORY}}');
    expect(out).toContain('nested {{SKILLS}} stays');
    // …while the template's own tokens were replaced.
    expect(out).toContain('- CWD: /work/repo');
  });

  it('empties disabled sections and removes their lines', () => {
    const off = (prompt: string) => ({ enabled: false, prompt });
    const out = assembleSystemPrompt(
      inputs({
        sections: {
          vault: off(DEFAULT_VAULT_PROMPT),
          skills: off(DEFAULT_SKILLS_PROMPT),
          memory: { enabled: false, prompt: DEFAULT_MEMORY_PROMPT, workspace_prompt: DEFAULT_MEMORY_WORKSPACE_PROMPT },
          schedules: off(DEFAULT_SCHEDULES_PROMPT),
        },
      }),
    );
    expect(out).not.toMatch(/# Vault|# Skills|# Memory|# Scheduled Tasks/);
    expect(out).toContain('[/developer_instructions]\n\n# Environment');
    expect(out).not.toContain('\n\n\n');
  });

  it('shows notes for empty lists and indexes', () => {
    const out = assembleSystemPrompt(inputs({ vaultKeys: [], skills: [], scheduleNames: [], memory: { userDir: '/u', userIndex: '' } }));
    expect(out).toContain(`Variables:\n${EMPTY_VAULT_NOTE}`);
    expect(out).toContain(`Installed skills:\n${EMPTY_SKILLS_NOTE}`);
    expect(out).toContain(`Current tasks:\n${EMPTY_SCHEDULES_NOTE}`);
    expect(out).toContain(`Index:\n${EMPTY_MEMORY_INDEX_NOTE}`);
    // A temporary workspace has no workspace scope: its half of the memory block is left out.
    expect(out).not.toContain('## Workspace memory');
  });

  it('resolves workspace placeholders to nothing outside a persistent workspace', () => {
    const out = assembleSystemPrompt(
      inputs({
        template: '{{MEMORY}}',
        memory: { userDir: '/u', userIndex: 'u' },
        sections: { ...inputs().sections, memory: { enabled: true, prompt: 'P {{WORKSPACE_MEMORY_DIR}}|{{WORKSPACE_MEMORY_INDEX}} Q', workspace_prompt: 'never' } },
      }),
    );
    expect(out).toBe('P | Q');
  });

  it('keeps legacy inline placeholders working and honours their toggles', () => {
    const template = 'Keys:\n{{VAULT_KEYS}}\nSkills:\n{{SKILL_METADATA}}\n{{UNKNOWN_TOKEN}}';
    expect(assembleSystemPrompt(inputs({ template }))).toBe('Keys:\n- GITHUB_TOKEN\n- API_BASE\nSkills:\n- `web-research` — Search and cite\n{{UNKNOWN_TOKEN}}');
    const off = assembleSystemPrompt(inputs({ template, sections: { ...inputs().sections, vault: { enabled: false, prompt: '' } } }));
    expect(off.startsWith('Keys:\n\nSkills:')).toBe(true);
  });

  it('never puts vault values in the prompt (it is only given key names)', () => {
    expect(assembleSystemPrompt(inputs())).not.toMatch(/ghp_|sk-/);
  });
});

describe('helpers', () => {
  it('expandOnce replaces known tokens once and keeps unknown ones', () => {
    expect(expandOnce('{{A}} {{B}} {{A}}', { '{{A}}': '{{B}}' })).toBe('{{B}} {{B}} {{B}}');
  });

  it('fills host values and formats the local date', () => {
    const env = sessionEnvironment({ projectDir: '/p', agentId: 'a', cwd: '/w', provider: 'x', modelId: 'y', sessionId: 's', now: new Date(2026, 0, 5, 23, 59), shell: 'zsh' });
    expect(env.date).toBe('2026-01-05');
    expect(env.shell).toBe('zsh');
    expect(env.platform).toBe(process.platform);
    expect(localDate(new Date(2026, 11, 31))).toBe('2026-12-31');
  });
});
