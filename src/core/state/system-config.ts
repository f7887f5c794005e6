/**
 * `agent_state/system_config.yaml` (engine.md §6.2): the strict zod schema of the file as written, the
 * defaults, and how omitted keys default at use (no deep merge: a written `tools.builtin` replaces the
 * default list wholesale). Parsing returns a typed error naming file, key path, expected and found — never
 * a half-valid config. Also renders the default file a new agent starts with.
 */
import * as z from 'zod';
import { stringify as stringifyYaml } from 'yaml';
import { DEFAULT_BUILTIN_TOOLS } from '../environment/default-tools';
import type { MCPServerConfig, ThinkingLevel, ToolDefinitionConfig } from '../interfaces';
import { THINKING_LEVELS } from '../interfaces';
import { issuesFromZod, fail, ok, type StateResult } from './errors';
import { parseYamlText } from './parse-text';
import { DEFAULT_SYSTEM_PROMPT } from './prompts/system-template';
import {
  DEFAULT_COMPACTION_PROMPT,
  DEFAULT_MEMORY_PROMPT,
  DEFAULT_MEMORY_WORKSPACE_PROMPT,
  DEFAULT_SCHEDULES_PROMPT,
  DEFAULT_SKILLS_PROMPT,
  DEFAULT_VAULT_PROMPT,
} from './prompts/section-prompts';
import { MCPServerConfigSchema, ToolDefinitionConfigSchema } from './tool-config-schema';

/** The PenguinHarness defaults generation these defaults correspond to (11 builtins incl. the kill tools). */
export const KERNEL_VERSION = '2026-08-21';

export const SYSTEM_DEFAULTS = {
  version: 1,
  max_turns: -1,
  model: { max_tokens: 32000, thinking_level: 'medium' as ThinkingLevel, timeoutMs: 120000 },
  compaction: { max_context_length: 256000, max_session_turns: -1, mode: 'summarize' as const },
} as const;

/**
 * The file's schema, built for each read and then let go: an agent's file is read at its load and when it
 * changes, and a schema held for the process's life (with what zod compiles at its first parse) is heap
 * every gateway pays for nothing in between.
 */
export function buildSystemConfigSchema() {
  const int = () => z.number().int();
  const toggle = () => z.strictObject({ enabled: z.boolean().optional(), prompt: z.string().optional() }).optional();

  return z.strictObject({
    name: z.string().optional(),
    description: z.string().optional(),
    version: int().min(1).optional(),
    kernel_version: z.string().optional(),
    system_prompt: z.string(),
    max_turns: int()
      .refine((n) => n === -1 || n > 0, 'a positive integer or -1 (unlimited)')
      .optional(),
    model: z
      .strictObject({
        max_tokens: int().optional(),
        thinking_level: z.enum(THINKING_LEVELS as [ThinkingLevel, ...ThinkingLevel[]]).optional(),
        timeoutMs: int().optional(),
      })
      .optional(),
    compaction: z
      .strictObject({
        max_context_length: int().optional(),
        max_session_turns: int().optional(),
        mode: z.enum(['summarize', 'discard']).optional(),
        prompt: z.string().optional(),
      })
      .optional(),
    memory: z
      .strictObject({ enabled: z.boolean().optional(), prompt: z.string().optional(), workspace_prompt: z.string().optional() })
      .optional(),
    vault: toggle(),
    skills: toggle(),
    schedules: toggle(),
    tools: z
      .strictObject({
        builtin: z.array(ToolDefinitionConfigSchema).optional(),
        mcpServers: z.array(MCPServerConfigSchema).optional(),
      })
      .optional(),
  });
}

/** The file exactly as written (omitted keys stay absent). */
export type SystemConfigFile = z.output<ReturnType<typeof buildSystemConfigSchema>>;

interface Section {
  enabled: boolean;
  prompt: string;
}

/** Every key filled: written values win, omitted keys take their defaults. */
export interface ResolvedSystemConfig {
  name?: string;
  description?: string;
  version: number;
  kernel_version?: string;
  system_prompt: string;
  max_turns: number;
  model: { max_tokens: number; thinking_level: ThinkingLevel; timeoutMs: number };
  compaction: { max_context_length: number; max_session_turns: number; mode: 'summarize' | 'discard'; prompt: string };
  memory: { enabled: boolean; prompt: string; workspace_prompt: string };
  vault: Section;
  skills: Section;
  schedules: Section;
  tools: { builtin: ToolDefinitionConfig[]; mcpServers: MCPServerConfig[] };
}

export function parseSystemConfig(text: string, file: string): StateResult<SystemConfigFile> {
  const parsed = parseYamlText(text, file);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  if (raw === null || raw === undefined) {
    return fail(file, 'invalid', [{ path: '', expected: 'a YAML mapping with at least `system_prompt`', found: 'an empty file' }]);
  }
  const schema = buildSystemConfigSchema();
  const r = schema.safeParse(raw);
  if (!r.success) return fail(file, 'invalid', issuesFromZod(r.error, raw, schema));
  return ok(r.data);
}

export interface ResolveOptions {
  /** Used when the file has no `tools.builtin` (default: the engine's 11 builtins). */
  defaultBuiltinTools?: readonly ToolDefinitionConfig[];
  /** Project `[default_chat].thinking_level`, the middle link of the thinking chain. */
  projectThinkingLevel?: ThinkingLevel;
}

/** Thinking chain (engine.md §6.2): agent `model.thinking_level` > project `[default_chat]` > `medium`. */
export function resolveThinkingLevel(file: Pick<SystemConfigFile, 'model'>, projectThinkingLevel?: ThinkingLevel): ThinkingLevel {
  return file.model?.thinking_level ?? projectThinkingLevel ?? SYSTEM_DEFAULTS.model.thinking_level;
}

export function resolveSystemConfig(file: SystemConfigFile, opts: ResolveOptions = {}): ResolvedSystemConfig {
  const section = (s: { enabled?: boolean; prompt?: string } | undefined, prompt: string): Section => ({
    enabled: s?.enabled ?? true,
    prompt: s?.prompt ?? prompt,
  });
  const out: ResolvedSystemConfig = {
    version: file.version ?? SYSTEM_DEFAULTS.version,
    system_prompt: file.system_prompt,
    max_turns: file.max_turns ?? SYSTEM_DEFAULTS.max_turns,
    model: {
      max_tokens: file.model?.max_tokens ?? SYSTEM_DEFAULTS.model.max_tokens,
      thinking_level: resolveThinkingLevel(file, opts.projectThinkingLevel),
      timeoutMs: file.model?.timeoutMs ?? SYSTEM_DEFAULTS.model.timeoutMs,
    },
    compaction: {
      max_context_length: file.compaction?.max_context_length ?? SYSTEM_DEFAULTS.compaction.max_context_length,
      max_session_turns: file.compaction?.max_session_turns ?? SYSTEM_DEFAULTS.compaction.max_session_turns,
      mode: file.compaction?.mode ?? SYSTEM_DEFAULTS.compaction.mode,
      prompt: file.compaction?.prompt ?? DEFAULT_COMPACTION_PROMPT,
    },
    memory: {
      enabled: file.memory?.enabled ?? true,
      prompt: file.memory?.prompt ?? DEFAULT_MEMORY_PROMPT,
      workspace_prompt: file.memory?.workspace_prompt ?? DEFAULT_MEMORY_WORKSPACE_PROMPT,
    },
    vault: section(file.vault, DEFAULT_VAULT_PROMPT),
    skills: section(file.skills, DEFAULT_SKILLS_PROMPT),
    schedules: section(file.schedules, DEFAULT_SCHEDULES_PROMPT),
    tools: {
      builtin: (file.tools?.builtin ?? opts.defaultBuiltinTools ?? DEFAULT_BUILTIN_TOOLS).map((t) => ({ ...t })),
      mcpServers: (file.tools?.mcpServers ?? []).map((s) => ({ ...s })),
    },
  };
  if (file.name !== undefined) out.name = file.name;
  if (file.description !== undefined) out.description = file.description;
  if (file.kernel_version !== undefined) out.kernel_version = file.kernel_version;
  return out;
}

/** The config a new agent is created with: every key of §6.2 written out with its default. */
export function defaultSystemConfig(builtinTools: readonly ToolDefinitionConfig[] = DEFAULT_BUILTIN_TOOLS, identity: { name?: string; description?: string } = {}): SystemConfigFile {
  return {
    ...(identity.name !== undefined ? { name: identity.name } : {}),
    ...(identity.description !== undefined ? { description: identity.description } : {}),
    version: SYSTEM_DEFAULTS.version,
    kernel_version: KERNEL_VERSION,
    system_prompt: DEFAULT_SYSTEM_PROMPT,
    max_turns: SYSTEM_DEFAULTS.max_turns,
    model: { ...SYSTEM_DEFAULTS.model },
    compaction: { ...SYSTEM_DEFAULTS.compaction, prompt: DEFAULT_COMPACTION_PROMPT },
    memory: { enabled: true, prompt: DEFAULT_MEMORY_PROMPT, workspace_prompt: DEFAULT_MEMORY_WORKSPACE_PROMPT },
    vault: { enabled: true, prompt: DEFAULT_VAULT_PROMPT },
    skills: { enabled: true, prompt: DEFAULT_SKILLS_PROMPT },
    schedules: { enabled: true, prompt: DEFAULT_SCHEDULES_PROMPT },
    tools: { builtin: builtinTools.map((t) => ({ ...t })), mcpServers: [] },
  };
}

/** YAML text of a config (multi-line prompts as literal blocks, no line folding). */
export function renderSystemConfigYaml(config: SystemConfigFile): string {
  return stringifyYaml(config, { lineWidth: 0, blockQuote: 'literal' });
}
