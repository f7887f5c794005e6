/**
 * MCP server configuration at the boundary (engine.md §4.6): `{name, config}` with a name matching
 * `^[A-Za-z0-9][A-Za-z0-9_-]*$`; transport `stdio` (`command`, `args`, `env`, `cwd`), `http` or `sse`
 * (`url`, `headers`), inferred from `command` ⇒ stdio / `url` ⇒ http when absent; shared
 * `connectTimeoutMs` (10000), `timeoutMs`, `maxOutputLength`, `permission` (`auto`|`r`|`rw`).
 */
import * as z from 'zod';
import type { McpTransport } from '../../omnimessage/types';
import type { MCPServerConfig } from '../../interfaces';
import { MCP_CONNECT_TIMEOUT_MS } from '../limits';

export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const common = {
  connectTimeoutMs: z.number().int().positive().optional(),
  timeoutMs: z.number().int().optional(),
  maxOutputLength: z.number().int().optional(),
  permission: z.enum(['auto', 'r', 'rw']).optional(),
};
const headers = z.record(z.string(), z.string()).optional();
const url = z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'must be an http(s) URL');

const stdioSchema = z.object({
  transport: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...common,
});
const httpSchema = z.object({ transport: z.literal('http').optional(), url, headers, ...common });
const sseSchema = z.object({ transport: z.literal('sse'), url, headers, ...common });

interface CommonSpec {
  name: string;
  connectTimeoutMs: number;
  timeoutMs?: number;
  maxOutputLength?: number;
  permission: 'auto' | 'r' | 'rw';
}
export type McpServerSpec =
  | (CommonSpec & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (CommonSpec & { transport: 'http' | 'sse'; url: string; headers: Record<string, string> });

export type SpecResult = { ok: true; spec: McpServerSpec } | { ok: false; name: string; transport: McpTransport; error: string };

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'config'}: ${i.message}`).join('; ');
}

export function inferTransport(config: Record<string, unknown>): McpTransport | undefined {
  const t = config.transport;
  if (t === 'stdio' || t === 'http' || t === 'sse') return t;
  if (t !== undefined) return undefined;
  if (config.command !== undefined) return 'stdio';
  if (config.url !== undefined) return 'http';
  return undefined;
}

export function parseServerConfig(entry: MCPServerConfig): SpecResult {
  const name = typeof entry?.name === 'string' ? entry.name : '';
  const config = entry?.config && typeof entry.config === 'object' ? entry.config : {};
  const transport = inferTransport(config);
  const fail = (error: string): SpecResult => ({ ok: false, name: name || '(unnamed)', transport: transport ?? 'stdio', error });
  if (!SERVER_NAME_PATTERN.test(name)) return fail(`invalid MCP server name ${JSON.stringify(name)}: use letters, digits, "_" and "-", starting with a letter or digit`);
  if (!transport) {
    return fail(config.transport !== undefined
      ? `unknown transport ${JSON.stringify(config.transport)} (expected stdio, http or sse)`
      : 'config needs `command` (stdio) or `url` (http, or sse with transport: "sse")');
  }
  const base = (c: { connectTimeoutMs?: number; timeoutMs?: number; maxOutputLength?: number; permission?: 'auto' | 'r' | 'rw' }): CommonSpec => ({
    name,
    connectTimeoutMs: c.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS,
    timeoutMs: c.timeoutMs,
    maxOutputLength: c.maxOutputLength,
    permission: c.permission ?? 'auto',
  });
  if (transport === 'stdio') {
    const r = stdioSchema.safeParse(config);
    if (!r.success) return fail(`invalid stdio config: ${formatIssues(r.error)}`);
    return { ok: true, spec: { ...base(r.data), transport, command: r.data.command, args: r.data.args ?? [], env: r.data.env ?? {}, cwd: r.data.cwd } };
  }
  const r = (transport === 'sse' ? sseSchema : httpSchema).safeParse(config);
  if (!r.success) return fail(`invalid ${transport} config: ${formatIssues(r.error)}`);
  return { ok: true, spec: { ...base(r.data), transport, url: r.data.url, headers: r.data.headers ?? {} } };
}
