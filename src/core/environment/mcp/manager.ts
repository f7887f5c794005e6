/**
 * The Environment's MCP servers (engine.md §4.6): one lazy, parallel connect attempt shared by every
 * caller; per-server results for `mcp_connect_end`; failed servers are skipped; an aborted attempt
 * closes what it opened and may be retried; a completed attempt freezes the tool list for the
 * Environment's life. Tools are exposed as built-in-shaped tools so the same close-out frames them.
 */
import type { McpServerConnectResult, McpConnectStatus } from '../../omnimessage/types';
import type { BuiltinTool, MCPServerConfig, ToolDefinitionConfig, ToolPermission, ToolResult } from '../../interfaces';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../async-utils';
import type { SubprocessEnvPolicy } from '../subprocess-env';
import { parseServerConfig, type McpServerSpec, type SpecResult } from './config';
import { connectServer, NO_TIMEOUT_MS, type McpConnection } from './connection';
import { convertCallResult } from './result';
import { mcpToolName, nameProblem } from './tool-names';

export interface McpManagerOptions {
  workspaceDir: string;
  hostEnv: NodeJS.ProcessEnv;
  envPolicy?: SubprocessEnvPolicy;
  warn: (message: string) => void;
}

export interface McpConnectOutcome {
  status: McpConnectStatus;
  results: McpServerConnectResult[];
}

export class McpManager {
  private readonly specs: SpecResult[];
  private attempt: Promise<McpConnectOutcome> | null = null;
  private attemptController: AbortController | null = null;
  private outcome: McpConnectOutcome | null = null;
  private connections: McpConnection[] = [];
  private tools: BuiltinTool[] = [];
  private disposed = false;

  constructor(servers: readonly MCPServerConfig[], private readonly o: McpManagerOptions) {
    const seen = new Set<string>();
    this.specs = servers.map((s) => {
      const r = parseServerConfig(s);
      if (r.ok && seen.has(r.spec.name)) return { ok: false, name: r.spec.name, transport: r.spec.transport, error: `duplicate MCP server name ${r.spec.name}` };
      if (r.ok) seen.add(r.spec.name);
      return r;
    });
  }

  get serverNames(): string[] {
    return this.specs.map((s) => (s.ok ? s.spec.name : s.name));
  }

  get hasServers(): boolean {
    return this.specs.length > 0;
  }

  /** The frozen outcome, once a connect attempt completed. */
  get connected(): McpConnectOutcome | null {
    return this.outcome;
  }

  /** MCP tools (empty until connected). */
  listTools(): BuiltinTool[] {
    return this.tools;
  }

  /** Connect every server once; concurrent callers share the attempt; an abort ends it with `aborted`. */
  connect(signal?: AbortSignal): Promise<McpConnectOutcome> {
    if (this.outcome) return Promise.resolve(this.outcome);
    if (!this.attempt) {
      const controller = new AbortController();
      this.attempt = this.run(controller.signal);
      this.attemptController = controller;
    }
    const attempt = this.attempt;
    if (signal) {
      const onAbort = () => this.attemptController?.abort(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void attempt.finally(() => signal.removeEventListener('abort', onAbort));
    }
    return attempt;
  }

  private async run(signal: AbortSignal): Promise<McpConnectOutcome> {
    const opened: { spec: McpServerSpec; conn: McpConnection }[] = [];
    const results = await Promise.all(
      this.specs.map(async (s): Promise<McpServerConnectResult> => {
        if (!s.ok) {
          this.o.warn(`MCP server ${s.name} skipped: ${s.error}`);
          return { server: s.name, transport: s.transport, status: 'failed', duration_ms: 0, error: s.error };
        }
        const started = Date.now();
        try {
          const conn = await connectServer(s.spec, { workspaceDir: this.o.workspaceDir, hostEnv: this.o.hostEnv, envPolicy: this.o.envPolicy, signal });
          opened.push({ spec: s.spec, conn });
          return { server: s.spec.name, transport: s.spec.transport, status: 'completed', duration_ms: Date.now() - started, tools: conn.tools.length };
        } catch (err) {
          const status = signal.aborted ? 'aborted' : 'failed';
          if (status === 'failed') this.o.warn(`MCP server ${s.spec.name} failed to connect: ${errorMessage(err)}`);
          return { server: s.spec.name, transport: s.spec.transport, status, duration_ms: Date.now() - started, error: errorMessage(err) };
        }
      }),
    );
    if (signal.aborted || this.disposed) {
      await Promise.all(opened.map((o) => o.conn.close()));
      this.attempt = null;
      this.attemptController = null;
      return { status: 'aborted', results };
    }
    this.connections = opened.map((o) => o.conn);
    const taken = new Set<string>();
    // Register in configuration order so names and duplicates resolve the same way every time.
    for (const s of this.specs) {
      const hit = s.ok ? opened.find((o) => o.spec === s.spec) : undefined;
      if (!hit) continue;
      for (const tool of hit.conn.tools) {
        const full = mcpToolName(hit.spec.name, tool.name);
        const problem = nameProblem(full, taken);
        if (problem) {
          this.o.warn(`MCP tool skipped (server ${hit.spec.name}): ${problem}`);
          continue;
        }
        taken.add(full);
        this.tools.push(this.wrapTool(hit.spec, hit.conn, tool, full));
      }
    }
    const status: McpConnectStatus = results.every((r) => r.status === 'completed') ? 'completed' : 'failed';
    this.outcome = { status, results };
    return this.outcome;
  }

  private wrapTool(spec: McpServerSpec, conn: McpConnection, tool: Tool, fullName: string): BuiltinTool {
    const permission: ToolPermission = spec.permission === 'auto' ? (tool.annotations?.readOnlyHint === true ? 'r' : 'rw') : spec.permission;
    const definition: ToolDefinitionConfig = {
      name: fullName,
      description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
      parameters: tool.inputSchema as Record<string, unknown>,
      permission,
      timeoutMs: spec.timeoutMs,
      maxOutputLength: spec.maxOutputLength,
    };
    return {
      definition,
      async *run(args, ctx): AsyncGenerator<string, ToolResult> {
        const timeoutMs = spec.timeoutMs ?? 0;
        const result = await conn.client.callTool({ name: tool.name, arguments: args }, undefined, {
          signal: ctx.signal,
          // The close-out enforces the tool timeout; the SDK's own default (60 s) must not cut in first.
          timeout: timeoutMs > 0 ? Math.min(timeoutMs + 5_000, NO_TIMEOUT_MS) : NO_TIMEOUT_MS,
        });
        const out = convertCallResult(result as Record<string, unknown>);
        if (out.text) yield out.text;
        return { stop_reason: out.isError ? 'failed' : 'completed', images: out.images };
      },
    };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const pending = this.attempt;
    this.attemptController?.abort();
    if (pending) await pending;
    const conns = this.connections;
    this.connections = [];
    await Promise.all(conns.map((c) => c.close()));
  }
}
