/**
 * Which arguments of the built-in tools name a path, and where a call's paths lie (gateway.md §6). The
 * approval layer asks before a call that reaches `outside` its Session's confinement, whatever the mode;
 * `forbidden` wins over `outside` (the tool itself refuses it). Calls with unreadable arguments and tools
 * that name no path (MCP tools, subagents) are `inside`: their own validation and confinement apply.
 */
import type { ToolCallMessage, ToolReach } from '../interfaces';
import type { PathConfinement } from './confinement';
import { resolvePath } from './tools/tool-kit';

const PATH_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['file_path'],
  write_file: ['file_path'],
  edit_file: ['file_path'],
  read_image: ['source'],
  describe_image: ['source'],
  exec_command: ['workdir'],
};

/** URLs are fetched, not opened: only local sources are paths. */
const isUrl = (s: string) => /^(https?|data):/i.test(s);

const RANK: Record<ToolReach, number> = { inside: 0, outside: 1, forbidden: 2 };

export function pathArguments(toolName: string, args: Record<string, unknown>): string[] {
  const keys = PATH_ARGUMENTS[toolName] ?? [];
  return keys.map((k) => args[k]).filter((v): v is string => typeof v === 'string' && v !== '' && !isUrl(v));
}

export async function callReach(
  call: ToolCallMessage,
  confinement: PathConfinement,
  workspaceDir: string,
  env: Record<string, string>,
): Promise<ToolReach> {
  let args: unknown;
  try {
    args = JSON.parse(call.payload.arguments);
  } catch {
    return 'inside';
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'inside';
  let worst: ToolReach = 'inside';
  for (const p of pathArguments(call.payload.name, args as Record<string, unknown>)) {
    const r = await confinement.reach(resolvePath(workspaceDir, p, env));
    if (RANK[r] > RANK[worst]) worst = r;
  }
  return worst;
}
