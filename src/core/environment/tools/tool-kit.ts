/**
 * What every built-in tool implementation shares: its argument schema (validated by the Environment
 * before `run`), the per-Environment state it may use, and workspace-relative path resolution.
 */
import * as path from 'node:path';
import * as z from 'zod';
import type { BuiltinTool, ToolDefinitionConfig } from '../../interfaces';
import type { CommandSessionManager } from './command-sessions';
import type { SubagentManager } from './subagent-manager';

export interface ToolDeps {
  commands: CommandSessionManager;
  subagents: SubagentManager;
}

/** A built-in tool plus the zod schema its arguments must satisfy. */
export interface ValidatedTool<A = Record<string, unknown>> extends BuiltinTool<A> {
  schema: z.ZodType<A>;
}

/** A tool factory with its argument type erased: the Environment validates with the tool's own schema before `run`. */
export type ToolFactory = (definition: ToolDefinitionConfig, deps: ToolDeps) => ValidatedTool;

export function eraseArgs<A>(factory: (definition: ToolDefinitionConfig, deps: ToolDeps) => ValidatedTool<A>): ToolFactory {
  return factory as unknown as ToolFactory;
}

/** The user-facing sentence every default tool takes first; optional because `call_description: false` hides it. */
export const descriptionArg = z.string().optional();

/** Absolute path for a tool argument: relative paths are taken from the Workspace; `~/` from HOME. */
export function resolvePath(workspaceDir: string, p: string, env?: Record<string, string>): string {
  if (p === '~' || p.startsWith('~/')) {
    const home = env?.HOME ?? process.env.HOME;
    if (home) return path.resolve(home, p.slice(2));
  }
  return path.resolve(workspaceDir, p);
}

/** Timeout a tool's definition gives it, for clamping foreground windows (≤0 = none). */
export const definitionTimeout = (def: ToolDefinitionConfig, fallback: number) => def.timeoutMs ?? fallback;
