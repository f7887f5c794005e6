/**
 * A prompt compiled once per agent and filled per session is the direct assembly's text, whatever the
 * templates, section prompts, AGENTS.md and values (placeholders and the marker character included);
 * the compiler hands every session the same head string and compiles again when an input changes.
 */
import fc from 'fast-check';
import { assembleSystemPrompt, type PromptInputs } from '../../../src/core/state/prompt-assembly';
import { compilePrompt, fillPrompt, PromptCompiler } from '../../../src/core/state/prompt-compile';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/core/state/prompts/system-template';
import { DEFAULT_MEMORY_PROMPT, DEFAULT_MEMORY_WORKSPACE_PROMPT, DEFAULT_SCHEDULES_PROMPT, DEFAULT_SKILLS_PROMPT, DEFAULT_VAULT_PROMPT } from '../../../src/core/state/prompts/section-prompts';

const on = (prompt: string) => ({ enabled: true, prompt });
const SECTIONS = {
  vault: on(DEFAULT_VAULT_PROMPT),
  skills: on(DEFAULT_SKILLS_PROMPT),
  memory: { enabled: true, prompt: DEFAULT_MEMORY_PROMPT, workspace_prompt: DEFAULT_MEMORY_WORKSPACE_PROMPT },
  schedules: on(DEFAULT_SCHEDULES_PROMPT),
};

function inputs(over: Partial<PromptInputs> = {}, env: Partial<PromptInputs['env']> = {}): PromptInputs {
  return {
    template: DEFAULT_SYSTEM_PROMPT,
    agentsMd: 'Be kind — always.\n',
    sections: SECTIONS,
    env: {
      platform: 'linux',
      osVersion: 'Linux 6.8.0',
      shell: 'bash',
      date: '2026-12-02',
      projectDir: '/data/default_project',
      agentId: 'default_agent',
      cwd: '/data/default_project/agents/default_agent/workspaces/tmp-0123abcd',
      provider: 'p',
      modelId: 'm',
      sessionId: 'session-2026-12-02-10-00-00-deadbeef',
      ...env,
    },
    vaultKeys: ['API_KEY'],
    skills: [{ name: 'brewing', description: 'Tea {{CWD}} and coffee', version: 1 }],
    scheduleNames: ['standup'],
    memory: { userDir: '/u', userIndex: '- [Tea](tea.md) — green\n' },
    ...over,
  };
}

const pieces = ['{{CWD}}', '{{SESSION_ID}}', '{{DATE}}', '{{AGENTS_MD}}', '{{MEMORY}}', '{{SKILLS}}', '\n', '\n\n', ' ', 'text — é', '\u0000', '\u0000cwd\u0000', '{{VAULT}}'];
const textOf = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 12 }).map((xs) => xs.join(''));
const value = fc.oneof(fc.constantFrom('/work/repo', 'session-2026-12-02-10-00-00-0badf00d', ' padded ', '', 'a\u0000b', '{{SESSION_ID}}'), fc.string({ minLength: 1, maxLength: 10 }));

test('filled in, a compiled prompt is the direct assembly, for any template, texts and values', () => {
  fc.assert(
    fc.property(textOf, textOf, textOf, value, value, (template, agentsMd, memoryPrompt, cwd, sessionId) => {
      const i = inputs({ template, agentsMd, sections: { ...SECTIONS, memory: { ...SECTIONS.memory, prompt: memoryPrompt } } }, { cwd, sessionId });
      const halves = new PromptCompiler().halves(i);
      expect(halves.head + halves.rest).toBe(assembleSystemPrompt(i));
    }),
    { numRuns: 400 },
  );
});

test('the default prompt: one head for every session, its values only in the rest', () => {
  const compiler = new PromptCompiler();
  const a = compiler.halves(inputs());
  const b = compiler.halves(inputs({}, { cwd: '/data/default_project/agents/default_agent/workspaces/tmp-99999999', sessionId: 'session-2026-12-02-10-00-01-cafef00d' }));
  expect(b.head).toBe(a.head);
  expect(a.head.length).toBeGreaterThan(10 * a.rest.length);
  expect(b.rest).toContain('tmp-99999999');
  expect(b.rest).toContain('cafef00d');
  expect(b.head + b.rest).toBe(assembleSystemPrompt(inputs({}, { cwd: '/data/default_project/agents/default_agent/workspaces/tmp-99999999', sessionId: 'session-2026-12-02-10-00-01-cafef00d' })));
});

test('a changed input is compiled again; a marker in an input is assembled directly', () => {
  const compiler = new PromptCompiler();
  const first = compiler.halves(inputs());
  const edited = compiler.halves(inputs({ agentsMd: 'Answer in haiku.\n' }));
  expect(edited.head).not.toBe(first.head);
  expect(edited.head + edited.rest).toContain('Answer in haiku.');
  const nextDay = compiler.halves(inputs({}, { date: '2026-12-03' }));
  expect(nextDay.head + nextDay.rest).toContain('2026-12-03');
  expect(compilePrompt(inputs({ agentsMd: 'a\u0000cwd\u0000b' }))).toBeUndefined();
  const marked = compiler.halves(inputs({ agentsMd: 'a\u0000cwd\u0000b' }));
  expect(marked.head + marked.rest).toBe(assembleSystemPrompt(inputs({ agentsMd: 'a\u0000cwd\u0000b' })));
});

test('fill puts each value in its slot, in order', () => {
  const compiled = compilePrompt(inputs({ template: 'A {{CWD}} B {{SESSION_ID}} C {{CWD}}' }))!;
  expect(compiled.slots).toEqual(['cwd', 'sessionId', 'cwd']);
  expect(fillPrompt(compiled, { cwd: '/w', sessionId: 's' })).toEqual({ head: 'A ', rest: '/w B s C /w' });
});
