/**
 * The Agent State loader: one call gives composition everything it needs for a Session — validated
 * system config (as written and with defaults filled), AGENTS.md, skills, vault, schedule names, project
 * config with model resolution and the command-policy snapshot, the thinking level, the tool config and a
 * system-prompt function (the files it reads are kept and watched, see prompt-sources.ts). First use creates the project config and the agent directory with defaults;
 * `dryRun` writes nothing and reads what is missing as those same defaults (what a first start would use).
 * Every invalid file is reported (file, key path, expected, found); nothing half-valid is returned.
 */
import { mkdir } from 'node:fs/promises';
import { DEFAULT_BUILTIN_TOOLS } from '../environment/default-tools';
import type { ThinkingLevel, ToolConfig, ToolDefinitionConfig } from '../interfaces';
import { DEFAULT_APPROVAL_MODE, type ApprovalMode } from './approval';
import { commandPolicyCheck, type CommandPolicyCheck } from './command-policy';
import { fileError, type StateFileError, type StateResult } from './errors';
import { atomicWrite, exists, readIfExists, writeIfAbsent } from './files';
import { ensureUserMemory } from './memory';
import { agentPaths, agentsDir, DEFAULT_AGENT_ID, DEFAULT_PROJECT_ID, isValidId, resolveHome, type AgentPaths } from './paths';
import { defaultProjectConfig, loadProjectConfig, parseProjectConfig, renderProjectConfigToml, saveProjectConfig, type ModelRef, type ProjectConfig } from './project-config';
import { resolveModel, resolveVisionModel, type ResolvedModel } from './project-models';
import { PromptCompiler, type PromptHalves } from './prompt-compile';
import { PromptSources } from './prompt-sources';
import { commandShellName, sessionEnvironment } from './prompt-environment';
import { defaultBuiltinSkillsDir, installBuiltinSkills, listSkills, type SkillMetadata } from './skills';
import { listScheduleNames } from './schedules';
import {
  defaultSystemConfig,
  parseSystemConfig,
  renderSystemConfigYaml,
  resolveSystemConfig,
  type ResolvedSystemConfig,
  type SystemConfigFile,
} from './system-config';
import { loadVault, vaultKeyNames, type Vault } from './vault';

export interface LoadAgentStateOptions {
  /** Data root; default `PENGUIN_HOME` or `~/.penguin/data`. */
  home?: string;
  projectId?: string;
  agentId?: string;
  /** Create a missing project config / agent with defaults (default true). */
  create?: boolean;
  /**
   * Write nothing (wins over `create`): a missing project config or agent is read as the defaults a first
   * use would write, and `created` says what that first use would create. For checks such as doctor.
   */
  dryRun?: boolean;
  /** Builtin tools written into new agents and used when a file has no `tools.builtin` (default: the engine's 11). */
  defaultBuiltinTools?: readonly ToolDefinitionConfig[];
  /** Built-in skills installed into new agents; default the repository's `skills/`; null = none. */
  builtinSkillsDir?: string | null;
  /** Environment for PENGUIN_HOME / PENGUIN_MODEL / OPENAI_* (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface SessionPromptInput {
  sessionId: string;
  workspaceDir: string;
  /** The workspace was made just now for this session (a temporary one, not a link). */
  freshWorkspace?: boolean;
  provider: string;
  modelId: string;
  now?: Date;
  platform?: string;
  osVersion?: string;
  shell?: string;
}

export interface AgentState {
  paths: AgentPaths;
  /** system_config.yaml as written. */
  systemConfigFile: SystemConfigFile;
  /** Every key filled (thinking level via the chain). */
  config: ResolvedSystemConfig;
  agentsMd: string;
  skills: SkillMetadata[];
  vault: Vault;
  scheduleNames: string[];
  project: ProjectConfig;
  /** Agent `model.thinking_level` > project `[default_chat].thinking_level` > `medium`. */
  thinkingLevel: ThinkingLevel;
  /** Project `[default_chat].approval_mode`, else `allow-all`. */
  defaultApprovalMode: ApprovalMode;
  /** `{customTools, mcpServers}` for the Environment. */
  toolConfig: ToolConfig;
  /** Command-policy snapshot taken at load; a Session keeps the one it was created with. */
  commandPolicy: CommandPolicyCheck;
  /** The entry (with env-resolved credentials) for a pair, or the project default when omitted. */
  resolveModel(ref?: ModelRef): StateResult<ResolvedModel>;
  /** The project's `vision_model`, when configured. */
  visionModel(): StateResult<ResolvedModel> | undefined;
  /**
   * The assembled system prompt for one Session, from the current AGENTS.md, skills, schedule names and
   * memory indexes (kept between prompts and read again after they change on disk).
   */
  systemPrompt(input: SessionPromptInput): Promise<string>;
  /**
   * The same prompt as its head, the text before the first per-session value (one string for every session
   * while the agent's files and the date stay the same: the prompt is assembled once, not per session), and
   * the rest.
   */
  systemPromptHalves(input: SessionPromptInput): Promise<PromptHalves>;
  /** Stop watching the agent's files (prompts then read them every time). */
  close(): void;
  /** True when this call created the project config / the agent (with `dryRun`: would create). */
  created: { project: boolean; agent: boolean };
}

export type AgentStateResult = { ok: true; value: AgentState } | { ok: false; errors: StateFileError[] };

const AGENT_DIRS = (p: AgentPaths) => [p.stateDir, p.toolsDir, p.skillsDir, p.memoryDir, p.scratchpadDir];

/** Writes the project config with defaults when it is absent; returns whether it was created. */
export async function ensureProjectConfig(file: string, env: Record<string, string | undefined>): Promise<boolean> {
  if (await exists(file)) return false;
  await saveProjectConfig(file, defaultProjectConfig(env));
  return true;
}

/** Creates a new agent's directory with defaults; system_config.yaml is written last as the completion mark. */
export async function createAgentFiles(p: AgentPaths, builtinTools: readonly ToolDefinitionConfig[], builtinSkillsDir: string | null | undefined): Promise<void> {
  for (const dir of AGENT_DIRS(p)) await mkdir(dir, { recursive: true });
  await ensureUserMemory(p.memoryDir);
  await writeIfAbsent(p.agentsMd, '');
  if (builtinSkillsDir) await installBuiltinSkills(builtinSkillsDir, p.skillsDir);
  await atomicWrite(p.systemConfig, renderSystemConfigYaml(defaultSystemConfig(builtinTools)));
}

function idError(home: string, key: string, id: string): StateFileError {
  return fileError(home, 'invalid', [{ path: key, expected: 'an id of letters, digits, "_" and "-"', found: `string ${JSON.stringify(id)}` }]);
}

/** Never throws: filesystem failures (permissions, a file where a directory belongs) come back as `io` errors. */
export async function loadAgentState(opts: LoadAgentStateOptions = {}): Promise<AgentStateResult> {
  try {
    return await load(opts);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const file = e.path ?? opts.home ?? resolveHome(opts.env ?? process.env);
    return { ok: false, errors: [fileError(file, 'io', [{ path: '', expected: 'a readable and writable agent directory', found: e.code ? `${e.code}: ${e.message}` : String(e.message ?? e) }])] };
  }
}

async function load(opts: LoadAgentStateOptions): Promise<AgentStateResult> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? resolveHome(env);
  const projectId = opts.projectId ?? DEFAULT_PROJECT_ID;
  const agentId = opts.agentId ?? DEFAULT_AGENT_ID;
  const idErrors = [
    ...(isValidId(projectId) ? [] : [idError(home, 'projectId', projectId)]),
    ...(isValidId(agentId) ? [] : [idError(home, 'agentId', agentId)]),
  ];
  if (idErrors.length > 0) return { ok: false, errors: idErrors };
  const p = agentPaths(home, projectId, agentId);
  const dryRun = opts.dryRun === true;
  const create = !dryRun && (opts.create ?? true);
  const builtinTools = opts.defaultBuiltinTools ?? DEFAULT_BUILTIN_TOOLS;
  const created = { project: false, agent: false };

  if (create) created.project = await ensureProjectConfig(p.projectConfig, env);
  if (create && !(await exists(p.systemConfig))) {
    const skillsDir = opts.builtinSkillsDir === undefined ? defaultBuiltinSkillsDir() : opts.builtinSkillsDir;
    await createAgentFiles(p, builtinTools, skillsDir);
    created.agent = true;
  }

  const errors: StateFileError[] = [];
  const missing = (file: string, what: string) => errors.push(fileError(file, 'io', [{ path: '', expected: what, found: 'no such file' }]));

  let projectLoad = await loadProjectConfig(p.projectConfig);
  if (projectLoad === undefined && dryRun) {
    // exactly the text ensureProjectConfig would write, read back the way it would be
    projectLoad = parseProjectConfig(renderProjectConfigToml(defaultProjectConfig(env)), p.projectConfig);
    created.project = true;
  }
  if (projectLoad === undefined) missing(p.projectConfig, 'the project config (.project_config.toml)');
  else if (!projectLoad.ok) errors.push(projectLoad.error);

  let systemText = await readIfExists(p.systemConfig);
  if (systemText === undefined && dryRun) {
    systemText = renderSystemConfigYaml(defaultSystemConfig(builtinTools));
    created.agent = true;
  }
  let systemFile: SystemConfigFile | undefined;
  if (systemText === undefined) missing(p.systemConfig, 'the agent config (system_config.yaml); the agent does not exist');
  else {
    const r = parseSystemConfig(systemText, p.systemConfig);
    if (r.ok) systemFile = r.value;
    else errors.push(r.error);
  }

  const vaultLoad = await loadVault(p.vault);
  if (!vaultLoad.ok) errors.push(vaultLoad.error);

  if (errors.length > 0 || !projectLoad?.ok || !systemFile || !vaultLoad.ok) return { ok: false, errors };
  const project = projectLoad.value;
  const vault = vaultLoad.value;

  const config = resolveSystemConfig(systemFile, {
    defaultBuiltinTools: builtinTools,
    ...(project.default_chat?.thinking_level ? { projectThinkingLevel: project.default_chat.thinking_level } : {}),
  });
  const agentsMd = (await readIfExists(p.agentsMd)) ?? '';
  const skills = await listSkills(p.skillsDir);
  const scheduleNames = await listScheduleNames(p.scheduleDir);

  const sources = new PromptSources({
    stateDir: p.stateDir, agentsMd: p.agentsMd, skillsDir: p.skillsDir, scheduleDir: p.scheduleDir, memoryDir: p.memoryDir, agentsDir: agentsDir(home, projectId),
  });
  const compiler = new PromptCompiler();
  const state: AgentState = {
    paths: p,
    systemConfigFile: systemFile,
    config,
    agentsMd,
    skills,
    vault,
    scheduleNames,
    project,
    thinkingLevel: config.model.thinking_level,
    defaultApprovalMode: project.default_chat?.approval_mode ?? DEFAULT_APPROVAL_MODE,
    toolConfig: { customTools: config.tools.builtin, mcpServers: config.tools.mcpServers },
    commandPolicy: commandPolicyCheck(project.command_policy),
    resolveModel: (ref) => resolveModel(project, p.projectConfig, ref, env),
    visionModel: () => resolveVisionModel(project, p.projectConfig, env),
    systemPromptHalves: async (input) => {
      // Memory is an enhancement: a memory directory that cannot be prepared leaves the Session without it.
      const memory = config.memory.enabled ? await sources.memoryFor(input.workspaceDir, input.freshWorkspace === true).catch(() => undefined) : undefined;
      return compiler.halves({
        template: config.system_prompt,
        agentsMd: await sources.agentsMd(),
        sections: config,
        env: sessionEnvironment({
          projectDir: p.projectDir,
          agentId,
          cwd: input.workspaceDir,
          provider: input.provider,
          modelId: input.modelId,
          sessionId: input.sessionId,
          ...(input.now ? { now: input.now } : {}),
          ...(input.platform !== undefined ? { platform: input.platform } : {}),
          ...(input.osVersion !== undefined ? { osVersion: input.osVersion } : {}),
          shell: input.shell ?? commandShellName(env),
        }),
        vaultKeys: vaultKeyNames(vault),
        skills: await sources.skills(),
        scheduleNames: await sources.scheduleNames(),
        ...(memory ? { memory } : {}),
      });
    },
    systemPrompt: async (input) => {
      const { head, rest } = await state.systemPromptHalves(input);
      return head + rest;
    },
    close: () => sources.close(),
    created,
  };
  return { ok: true, value: state };
}
