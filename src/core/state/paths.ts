/**
 * The on-disk layout of projects and agents (engine.md §0, §6.1): pure path functions plus the id rule.
 * Root = `PENGUIN_HOME` or `~/.penguin/data`; `<root>/<project>/agents/<agent>/agent_state/...`. Ids are
 * checked before any path is built so that no id can climb out of its parent directory.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tracesDir } from '../trace/paths';

export const DEFAULT_PROJECT_ID = 'default_project';
export const DEFAULT_AGENT_ID = 'default_agent';

/** project, agent, skill and schedule names: letters, digits, `_` and `-` only. */
export const ID_RE = /^[A-Za-z0-9_-]+$/;

export function isValidId(id: string): boolean {
  return ID_RE.test(id);
}

/** Throws a RangeError naming the kind of id; callers at the boundary turn it into their own error shape. */
export function assertValidId(kind: 'project id' | 'agent id' | 'skill name' | 'schedule name', id: string): void {
  if (!isValidId(id)) throw new RangeError(`invalid ${kind} ${JSON.stringify(id)}: only letters, digits, "_" and "-" are allowed`);
}

export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.PENGUIN_HOME;
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : join(homedir(), '.penguin', 'data');
}

export const projectDir = (home: string, projectId: string) => join(home, projectId);
export const projectConfigPath = (home: string, projectId: string) => join(projectDir(home, projectId), '.project_config.toml');
export const agentsDir = (home: string, projectId: string) => join(projectDir(home, projectId), 'agents');
export const agentDir = (home: string, projectId: string, agentId: string) => join(agentsDir(home, projectId), agentId);
export const agentStateDir = (home: string, projectId: string, agentId: string) => join(agentDir(home, projectId, agentId), 'agent_state');

/** Every path of one agent, computed once. */
export interface AgentPaths {
  home: string;
  projectId: string;
  agentId: string;
  projectDir: string;
  projectConfig: string;
  agentDir: string;
  stateDir: string;
  systemConfig: string;
  agentsMd: string;
  vault: string;
  toolsDir: string;
  skillsDir: string;
  scheduleDir: string;
  memoryDir: string;
  tracesDir: string;
  scratchpadDir: string;
  sharedEnvDir: string;
  workspacesDir: string;
}

export function agentPaths(home: string, projectId: string, agentId: string): AgentPaths {
  assertValidId('project id', projectId);
  assertValidId('agent id', agentId);
  const a = agentDir(home, projectId, agentId);
  const s = join(a, 'agent_state');
  return {
    home,
    projectId,
    agentId,
    projectDir: projectDir(home, projectId),
    projectConfig: projectConfigPath(home, projectId),
    agentDir: a,
    stateDir: s,
    systemConfig: join(s, 'system_config.yaml'),
    agentsMd: join(s, 'AGENTS.md'),
    vault: join(s, '.vault.toml'),
    toolsDir: join(s, 'tools'),
    skillsDir: join(s, 'skills'),
    scheduleDir: join(s, 'schedule'),
    memoryDir: join(s, 'memory'),
    tracesDir: tracesDir(home, projectId, agentId),
    scratchpadDir: join(a, 'scratchpad'),
    sharedEnvDir: join(a, 'shared_env'),
    workspacesDir: join(a, 'workspaces'),
  };
}
