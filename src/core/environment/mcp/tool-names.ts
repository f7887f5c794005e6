/**
 * MCP tool naming (engine.md §4.6): `mcp__<server>__<tool>`, which must match `^[a-zA-Z0-9_-]{1,128}$`
 * to be offered; invalid and duplicate names are reported so the caller can warn and skip them.
 */
import { MCP_TOOL_NAME_MAX } from '../limits';

export const MCP_TOOL_NAME_PATTERN = new RegExp(`^[a-zA-Z0-9_-]{1,${MCP_TOOL_NAME_MAX}}$`);

export const mcpToolName = (server: string, tool: string) => `mcp__${server}__${tool}`;

export function nameProblem(fullName: string, taken: ReadonlySet<string>): string | null {
  if (!MCP_TOOL_NAME_PATTERN.test(fullName)) {
    return fullName.length > MCP_TOOL_NAME_MAX
      ? `tool name ${fullName} is longer than ${MCP_TOOL_NAME_MAX} chars`
      : `tool name ${fullName} has characters outside [a-zA-Z0-9_-]`;
  }
  if (taken.has(fullName)) return `duplicate tool name ${fullName}`;
  return null;
}
