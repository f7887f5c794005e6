/**
 * The system-prompt placeholders (engine.md §6.2). Section placeholders expand to a whole feature block
 * (empty when the feature is off); inner ones carry data inside those blocks (or a legacy template body);
 * environment ones describe the Session. Anything else in `{{…}}` is left literally as written.
 */
export const AGENTS_MD = '{{AGENTS_MD}}';

export const SECTION_PLACEHOLDERS = ['{{VAULT}}', '{{SKILLS}}', '{{MEMORY}}', '{{SCHEDULES}}'] as const;
export type SectionPlaceholder = (typeof SECTION_PLACEHOLDERS)[number];

export const INNER_PLACEHOLDERS = [
  '{{VAULT_KEYS}}',
  '{{SKILL_METADATA}}',
  '{{SCHEDULE_LIST}}',
  '{{USER_MEMORY_INDEX}}',
  '{{WORKSPACE_MEMORY_INDEX}}',
  '{{WORKSPACE_MEMORY_DIR}}',
] as const;
export type InnerPlaceholder = (typeof INNER_PLACEHOLDERS)[number];

export const ENV_PLACEHOLDERS = [
  '{{PLATFORM}}',
  '{{OS_VERSION}}',
  '{{SHELL}}',
  '{{DATE}}',
  '{{PROJECT_DIR}}',
  '{{AGENT_ID}}',
  '{{CWD}}',
  '{{PROVIDER}}',
  '{{MODEL_ID}}',
  '{{SESSION_ID}}',
] as const;
export type EnvPlaceholder = (typeof ENV_PLACEHOLDERS)[number];

export const ALL_PLACEHOLDERS: readonly string[] = [AGENTS_MD, ...SECTION_PLACEHOLDERS, ...INNER_PLACEHOLDERS, ...ENV_PLACEHOLDERS];

