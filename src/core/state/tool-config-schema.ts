/**
 * zod schemas for the `tools` section of system_config.yaml: `builtin` entries are full
 * `ToolDefinitionConfig`s (they replace the default list wholesale) and `mcpServers` are `{name, config}`
 * with the server name rule of engine.md §4.6. The transport details inside `config` belong to the MCP layer.
 */
import * as z from 'zod';
import type { MCPServerConfig, ToolDefinitionConfig } from '../interfaces';

export const MCP_SERVER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export const ToolDefinitionConfigSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  permission: z.enum(['r', 'rw']).optional(),
  forModel: z.enum(['vision', 'text-only']).optional(),
  timeoutMs: z.number().optional(),
  maxOutputLength: z.number().optional(),
  call_description: z.boolean().optional(),
});

export const MCPServerConfigSchema = z.strictObject({
  name: z.string().regex(MCP_SERVER_NAME_RE),
  config: z.record(z.string(), z.unknown()),
});

// Compile-time proof that the schemas produce the engine's interface types.
const _tool: z.ZodType<ToolDefinitionConfig> = ToolDefinitionConfigSchema;
const _mcp: z.ZodType<MCPServerConfig> = MCPServerConfigSchema;
void _tool;
void _mcp;
