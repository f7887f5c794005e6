/**
 * `<project>/.project_config.toml` (engine.md §6.4): strict schema, load (typed errors with key paths),
 * render/save (0600, `[[models]]` last so no key lands in the wrong table), and the defaults a new project
 * is created with. `(provider, model_id)` is an entry's identity: never concatenated, never inferred.
 * Model entries use the llm layer's `ModelEntrySchema` (strict here: unknown keys are errors).
 */
import * as z from 'zod';
import { SELECTABLE_THINKING_LEVELS, type ThinkingLevel } from '../interfaces';
import { ModelEntrySchema, type ModelEntry, type ModelEntryInput } from '../llm/model-entry';
import { APPROVAL_MODES, type ApprovalMode } from './approval';
import type { CommandPolicyConfig } from './command-policy';
import { FACTORY_COMMAND_POLICY_RULES } from './command-policy-rules';
import { fail, issuesFromZod, ok, type StateIssue, type StateResult } from './errors';
import { atomicWrite, readIfExists, SECRET_MODE } from './files';
import { parseTomlText } from './parse-text';
import { ID_RE } from './paths';
import { compilePolicyPattern } from './regex-compat';
import { stringifyToml } from './toml';

export interface ModelRef {
  provider: string;
  model_id: string;
}

export const ModelRefSchema = z.strictObject({
  provider: z.string().trim().min(1),
  model_id: z.string().trim().min(1),
});

const CommandPolicyRuleSchema = z.strictObject({
  name: z.string().min(1),
  pattern: z
    .string()
    .min(1)
    .superRefine((p, ctx) => {
      try {
        compilePolicyPattern(p);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `a valid JavaScript regular expression (${(err as Error).message})` });
      }
    }),
  description: z.string().optional(),
  enabled: z.boolean().optional(),
});

export const ProjectConfigSchema = z.strictObject({
  name: z.string().optional(),
  default_model: ModelRefSchema.optional(),
  vision_model: ModelRefSchema.optional(),
  default_chat: z
    .strictObject({
      agent_id: z.string().regex(ID_RE).optional(),
      workspace: z.string().optional(),
      approval_mode: z.enum(APPROVAL_MODES).optional(),
      thinking_level: z.enum(SELECTABLE_THINKING_LEVELS as [ThinkingLevel, ...ThinkingLevel[]]).optional(),
    })
    .optional(),
  command_policy: z
    .strictObject({
      enabled: z.boolean().optional(),
      rules: z.array(CommandPolicyRuleSchema).optional(),
    })
    .optional(),
  models: z.array(ModelEntrySchema.strict()).default([]),
});

export interface ProjectConfig {
  name?: string;
  default_model?: ModelRef;
  vision_model?: ModelRef;
  default_chat?: { agent_id?: string; workspace?: string; approval_mode?: ApprovalMode; thinking_level?: ThinkingLevel };
  command_policy?: CommandPolicyConfig;
  models: ModelEntry[];
}

/** What a writer may hand in: model entries before defaults are applied. */
export type ProjectConfigInput = Omit<ProjectConfig, 'models'> & { models: ModelEntryInput[] };

export function sameRef(a: ModelRef, b: ModelRef): boolean {
  return a.provider === b.provider && a.model_id === b.model_id;
}

/** `(provider=…, model_id=…)`: display only, never an address. */
export function formatModelRef(ref: ModelRef): string {
  return `(provider=${ref.provider}, model_id=${ref.model_id})`;
}

function duplicateIssues(models: ModelEntry[]): StateIssue[] {
  const issues: StateIssue[] = [];
  models.forEach((m, i) => {
    const first = models.findIndex((o) => sameRef(o, m));
    if (first < i) {
      issues.push({ path: `models[${i}]`, expected: `a (provider, model_id) pair not already used by models[${first}]`, found: `duplicate ${formatModelRef(m)}` });
    }
  });
  return issues;
}

/** Validate already-parsed TOML data (`file` names the source in errors). */
export function projectConfigFromData(raw: unknown, file: string): StateResult<ProjectConfig> {
  const r = ProjectConfigSchema.safeParse(raw);
  if (!r.success) return fail(file, 'invalid', issuesFromZod(r.error, raw, ProjectConfigSchema));
  const dups = duplicateIssues(r.data.models);
  if (dups.length > 0) return fail(file, 'invalid', dups);
  return ok(r.data as ProjectConfig);
}

export function parseProjectConfig(text: string, file: string): StateResult<ProjectConfig> {
  const parsed = parseTomlText(text, file);
  return parsed.ok ? projectConfigFromData(parsed.value, file) : parsed;
}

/** Missing file = undefined (the caller decides whether to create it). */
export async function loadProjectConfig(file: string): Promise<StateResult<ProjectConfig> | undefined> {
  const text = await readIfExists(file);
  return text === undefined ? undefined : parseProjectConfig(text, file);
}

export const DEFAULT_MODEL_REF: ModelRef = Object.freeze({ provider: 'deepseek', model_id: 'deepseek-v4-flash' });

/** The seeded entry behind the default model: DeepSeek's OpenAI-compatible endpoint, text-only. */
export const DEFAULT_MODEL_ENTRY: ModelEntryInput = Object.freeze({
  provider: 'deepseek',
  model_id: 'deepseek-v4-flash',
  client_type: 'openai-chat',
  vision: false,
  base_url: 'https://api.deepseek.com',
});

/**
 * The file a new project starts with: the factory command policy, plus — unless `PENGUIN_MODEL` is set —
 * the default model `deepseek`/`deepseek-v4-flash` and its entry. With `PENGUIN_MODEL` set no model is
 * written: the environment supplies it (see `effectiveModels`) until an entry is added to the file.
 */
export function defaultProjectConfig(env: Record<string, string | undefined> = process.env): ProjectConfigInput {
  const base: ProjectConfigInput = {
    command_policy: { enabled: true, rules: FACTORY_COMMAND_POLICY_RULES.map((r) => ({ ...r })) },
    models: [],
  };
  if (blank(env.PENGUIN_MODEL)) {
    base.default_model = { ...DEFAULT_MODEL_REF };
    base.models = [{ ...DEFAULT_MODEL_ENTRY }];
  }
  return base;
}

const blank = (s: string | undefined): boolean => s === undefined || s.trim() === '';

function inlineRef(ref: ModelRef): string {
  const kv = (k: string, v: string) => stringifyToml({ [k]: v }).trim();
  return `{ ${kv('provider', ref.provider)}, ${kv('model_id', ref.model_id)} }`;
}

/** TOML text: scalars and inline model refs first, then tables, then `[[models]]` (always last). */
export function renderProjectConfigToml(config: ProjectConfigInput): string {
  const head: string[] = [];
  const tables: string[] = [];
  const clean = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
  if (config.name !== undefined) head.push(stringifyToml({ name: config.name }).trim());
  if (config.default_model) head.push(`default_model = ${inlineRef(config.default_model)}`);
  if (config.vision_model) head.push(`vision_model = ${inlineRef(config.vision_model)}`);
  if (config.default_chat) tables.push(stringifyToml({ default_chat: clean(config.default_chat) }).trim());
  if (config.command_policy) tables.push(stringifyToml({ command_policy: clean(config.command_policy) }).trim());
  const parts = [...head, ...tables];
  if (config.models.length > 0) parts.push(stringifyToml({ models: clean(config.models) }).trim());
  return `${parts.join('\n\n')}\n`;
}

/** Atomic write with mode 0600 (the file holds API keys). */
export async function saveProjectConfig(file: string, config: ProjectConfigInput): Promise<void> {
  await atomicWrite(file, renderProjectConfigToml(config), SECRET_MODE);
}
