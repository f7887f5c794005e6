/**
 * System-prompt assembly (engine.md §6.2), a pure function. Every placeholder is replaced in ONE pass over
 * the template, and replacement text is never scanned again: a `{{CWD}}` written inside AGENTS.md, a memory
 * index or a skill description stays literal. Section placeholders (`{{VAULT}} {{SKILLS}} {{MEMORY}}
 * {{SCHEDULES}}`) expand to their feature prompt — itself expanded once with the inner and environment
 * values — or to nothing when the feature is off; a section token alone on its line takes its blank line
 * with it when empty. Unknown `{{…}}` tokens stay as written.
 */
import type { ResolvedSystemConfig } from './system-config';
import { indexForPrompt, type SessionMemory } from './memory';
import { EMPTY_SCHEDULES_NOTE, EMPTY_SKILLS_NOTE, EMPTY_VAULT_NOTE } from './prompts/section-prompts';
import { skillMetadataLines, type SkillMetadata } from './skills';

/** Values of the environment placeholders. */
export interface PromptEnvironment {
  platform: string;
  osVersion: string;
  shell: string;
  /** `YYYY-MM-DD`, local date. */
  date: string;
  /** `<root>/<project>`, shown as the App Data Dir. */
  projectDir: string;
  agentId: string;
  cwd: string;
  provider: string;
  modelId: string;
  sessionId: string;
}

export interface PromptInputs {
  template: string;
  agentsMd: string;
  sections: Pick<ResolvedSystemConfig, 'vault' | 'skills' | 'memory' | 'schedules'>;
  env: PromptEnvironment;
  vaultKeys: readonly string[];
  skills: readonly SkillMetadata[];
  scheduleNames: readonly string[];
  /** The Session's memory; undefined = no memory for this Session. Ignored when `memory.enabled` is false. */
  memory?: SessionMemory;
}

const TOKEN_RE = /\{\{[A-Z_]+\}\}/g;
const TEMPLATE_RE = /\n?\n[ \t]*\{\{(?:VAULT|SKILLS|MEMORY|SCHEDULES)\}\}[ \t]*(?=\n|$)|\{\{[A-Z_]+\}\}/g;

/** Replace known tokens once; replacement text is not rescanned. */
export function expandOnce(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(TOKEN_RE, (tok) => (Object.prototype.hasOwnProperty.call(values, tok) ? values[tok] : tok));
}

const list = (items: readonly string[], empty: string) => (items.length ? items.map((s) => `- ${s}`).join('\n') : empty);

export function assembleSystemPrompt(inputs: PromptInputs): string {
  const { sections: cfg, env } = inputs;
  const memory = cfg.memory.enabled ? inputs.memory : undefined;
  const envValues: Record<string, string> = {
    '{{PLATFORM}}': env.platform,
    '{{OS_VERSION}}': env.osVersion,
    '{{SHELL}}': env.shell,
    '{{DATE}}': env.date,
    '{{PROJECT_DIR}}': env.projectDir,
    '{{AGENT_ID}}': env.agentId,
    '{{CWD}}': env.cwd,
    '{{PROVIDER}}': env.provider,
    '{{MODEL_ID}}': env.modelId,
    '{{SESSION_ID}}': env.sessionId,
  };
  const inner: Record<string, string> = {
    '{{VAULT_KEYS}}': cfg.vault.enabled ? list(inputs.vaultKeys, EMPTY_VAULT_NOTE) : '',
    '{{SKILL_METADATA}}': cfg.skills.enabled ? skillMetadataLines(inputs.skills) || EMPTY_SKILLS_NOTE : '',
    '{{SCHEDULE_LIST}}': cfg.schedules.enabled ? list(inputs.scheduleNames, EMPTY_SCHEDULES_NOTE) : '',
    '{{USER_MEMORY_INDEX}}': memory ? indexForPrompt(memory.userIndex) : '',
    '{{WORKSPACE_MEMORY_INDEX}}': memory?.workspace ? indexForPrompt(memory.workspace.index) : '',
    '{{WORKSPACE_MEMORY_DIR}}': memory?.workspace?.dir ?? '',
  };
  const inSection = { ...inner, ...envValues };
  const section = (enabled: boolean, prompt: string) => (enabled ? expandOnce(prompt, inSection).trim() : '');
  let memoryBlock = '';
  if (memory) {
    const user = section(true, cfg.memory.prompt);
    const ws = memory.workspace ? section(true, cfg.memory.workspace_prompt) : '';
    memoryBlock = [user, ws].filter((s) => s !== '').join('\n\n');
  }
  const values: Record<string, string> = {
    '{{AGENTS_MD}}': inputs.agentsMd.trim(),
    ...inSection,
    '{{VAULT}}': section(cfg.vault.enabled, cfg.vault.prompt),
    '{{SKILLS}}': section(cfg.skills.enabled, cfg.skills.prompt),
    '{{MEMORY}}': memoryBlock,
    '{{SCHEDULES}}': section(cfg.schedules.enabled, cfg.schedules.prompt),
  };
  const out = inputs.template.replace(TEMPLATE_RE, (match) => {
    const at = match.indexOf('{{');
    const tok = match.slice(at).trim();
    if (!Object.prototype.hasOwnProperty.call(values, tok)) return match;
    const value = values[tok];
    if (at === 0) return value;
    return value === '' ? '' : `${match.slice(0, at)}${value}`;
  });
  return out.trim();
}
