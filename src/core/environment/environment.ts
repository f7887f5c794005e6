/**
 * `Environment` (engine.md §4): the built-in tools, managed command sessions, subagents and MCP servers
 * of one Session behind `EnvironmentInterface`. `executeTool` always yields `start` at once and exactly
 * one complete `tool_call_output`: unknown tools and bad arguments become `failed` outputs that say what
 * was wrong, and every tool runs through the central close-out. Nothing here throws at the engine.
 */
import { mkdir } from 'node:fs/promises';
import * as b from '../omnimessage/builders';
import type { OmniMessage } from '../omnimessage/types';
import type {
  BackgroundCommandInfo, BackgroundNotice, BuiltinTool, EnvironmentConfig, EnvironmentInterface,
  ToolCallMessage, ToolDefinition, ToolExecutionRequest, ToolPermission, ToolReach,
} from '../interfaces';
import { parseArguments, validateArguments } from './arguments';
import { assembleBuiltins, type AssembledTool, type AssembledTools } from './assembly';
import { errorMessage } from './async-utils';
import { INTERRUPTED_NOTE, runWithCloseOut, toolErrorNote } from './close-out';
import { PathConfinement } from './confinement';
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from './limits';
import { McpManager } from './mcp/manager';
import { NoticeHub } from './notice-hub';
import { ToolOutputFrame } from './output-frame';
import { buildSubprocessEnv, INHERIT_HOST_ENV, type SubprocessEnvPolicy } from './subprocess-env';
import { callReach } from './tool-reach';
import { CommandSessionManager } from './tools/command-sessions';
import { SubagentManager } from './tools/subagent-manager';
import type { ValidatedTool } from './tools/tool-kit';

export interface EnvironmentOptions {
  /** Host environment the subprocess env is derived from (default `process.env`); `PENGUIN_SHELL` picks the shell. */
  hostEnv?: NodeJS.ProcessEnv;
  /** Which host variables tool processes and MCP servers inherit (default: all but the server's own). */
  envPolicy?: SubprocessEnvPolicy;
  /** Where configuration warnings go (skipped tools, failed MCP servers). Default: `process.emitWarning`. */
  warn?: (message: string) => void;
  /** Clock for idle bookkeeping (TTL sweeps); default `Date.now`. */
  now?: () => number;
  /** How long an aborted tool may take to wind down before its call closes without it. */
  abortGraceMs?: number;
}

export class Environment implements EnvironmentInterface {
  /** The agent's assembly, shared; the implementations this Environment has needed so far. */
  private readonly builtins: AssembledTools;
  private made?: Map<string, ValidatedTool>;
  private readonly commands: CommandSessionManager;
  private readonly subagents: SubagentManager;
  private readonly mcp: McpManager;
  private readonly notices = new NoticeHub();
  /** Built at the first tool call: most sessions never run one, and a burst of new ones need not pay for it. */
  private subprocessEnv?: Record<string, string>;
  private readonly hostEnv: NodeJS.ProcessEnv;
  private readonly envPolicy: SubprocessEnvPolicy;
  private readonly confinement?: PathConfinement;
  private connectEventsSent = false;
  /**
   * The session scratchpad is made at the first tool call, not with the session: most sessions never run a
   * tool, and a burst of new conversations should not wait on a mkdir each. Memoized while it succeeds.
   */
  private scratchpadMade?: Promise<string | null>;
  private disposing: Promise<void> | null = null;

  constructor(private readonly config: EnvironmentConfig, private readonly options: EnvironmentOptions = {}) {
    const hostEnv = (this.hostEnv = options.hostEnv ?? process.env);
    const warn = options.warn ?? ((m: string) => process.emitWarning(m, 'PenguinEnvironmentWarning'));
    const envPolicy = (this.envPolicy = options.envPolicy ?? INHERIT_HOST_ENV);
    if (config.confinement) this.confinement = new PathConfinement(config.confinement);
    this.commands = new CommandSessionManager({ shell: hostEnv.PENGUIN_SHELL || 'bash', notify: this.notices.emit, now: options.now, sandbox: config.sandbox });
    this.subagents = new SubagentManager({ runner: config.services?.subagentRunner, notify: this.notices.emit, now: options.now });
    this.builtins = assembleBuiltins(config.toolConfig.customTools, config.vision ?? true, warn);
    this.mcp = new McpManager(config.toolConfig.mcpServers, { workspaceDir: config.workspaceDir, hostEnv, envPolicy, warn });
  }

  private get env(): Record<string, string> {
    return (this.subprocessEnv ??= buildSubprocessEnv(this.hostEnv, this.config.vault ?? {}, this.envPolicy, this.config.workspaceDir));
  }

  async listTools(): Promise<ToolDefinition[]> {
    const tools = [...this.builtins.values()].map((t) => t.modelDefinition);
    if (this.mcp.hasServers && !this.disposing) await this.mcp.connect();
    for (const t of this.mcp.listTools()) {
      const d: ToolDefinition = { name: t.definition.name, description: t.definition.description };
      if (t.definition.parameters) d.parameters = t.definition.parameters;
      tools.push(d);
    }
    return tools;
  }

  async *connect(signal?: AbortSignal): AsyncGenerator<OmniMessage> {
    if (!this.mcp.hasServers || this.connectEventsSent || this.disposing) return;
    yield b.mcpConnectBegin(this.mcp.serverNames);
    const outcome = await this.mcp.connect(signal);
    yield b.mcpConnectEnd(outcome.status, outcome.results);
    if (outcome.status !== 'aborted') this.connectEventsSent = true;
  }

  toolPermission(name: string): ToolPermission | undefined {
    const builtin = this.builtins.get(name);
    if (builtin) return builtin.definition.permission ?? 'rw';
    return this.mcp.listTools().find((t) => t.definition.name === name)?.definition.permission;
  }

  toolReach(toolCall: ToolCallMessage): Promise<ToolReach> {
    if (!this.confinement || !this.builtins.has(toolCall.payload.name)) return Promise.resolve('inside');
    return callReach(toolCall, this.confinement, this.config.workspaceDir, this.env);
  }

  private readonly reach = (absPath: string): Promise<ToolReach> => this.confinement?.reach(absPath) ?? Promise.resolve('inside');

  async *executeTool(request: ToolExecutionRequest): AsyncGenerator<OmniMessage> {
    const { name, arguments: argText, tool_call_id: id } = request.toolCall.payload;
    yield b.partialToolCallOutput('start', id);
    let completeSent = false;
    let frame = new ToolOutputFrame(id, DEFAULT_MAX_OUTPUT_LENGTH, this.config.sessionScratchpadDir);
    const fail = async (text: string): Promise<OmniMessage[]> => {
      const delta = frame.content(text);
      return [...(delta ? [delta] : []), ...(await frame.close({ stopReason: 'failed' }))];
    };
    try {
      const problem = await this.makeScratchpad();
      if (problem) {
        for (const m of await fail(problem)) yield m;
        return;
      }
      const resolved = await this.resolve(name, request.signal);
      if (!resolved && request.signal?.aborted) {
        // Aborted while MCP servers were still connecting: the call was interrupted, not unknown.
        for (const m of await frame.close({ stopReason: 'aborted', notes: [INTERRUPTED_NOTE] })) yield m;
        return;
      }
      if (!resolved) {
        for (const m of await fail(`Unknown tool: ${name}`)) yield m;
        return;
      }
      const { tool, check } = resolved;
      frame = new ToolOutputFrame(id, tool.definition.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH, this.config.sessionScratchpadDir);
      const parsed = parseArguments(name, argText);
      const args = parsed.ok ? check(parsed.value) : parsed;
      if (!args.ok) {
        for (const m of await fail(args.error)) yield m;
        return;
      }
      const stream = runWithCloseOut(tool, args.value, {
        frame,
        timeoutMs: tool.definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        signal: request.signal,
        abortGraceMs: this.options.abortGraceMs,
        context: {
          toolCallId: id,
          workspaceDir: this.config.workspaceDir,
          sessionScratchpadDir: this.config.sessionScratchpadDir,
          env: { ...this.env },
          approve: request.approve,
          services: this.config.services ?? {},
          reach: this.reach,
        },
      });
      for await (const m of stream) {
        if (m.type === 'model_msg' && m.origin === undefined && m.payload.type === 'tool_call_output') completeSent = true;
        yield m;
      }
    } catch (err) {
      if (completeSent) return;
      for (const m of await frame.close({ stopReason: 'failed', notes: [toolErrorNote(errorMessage(err))] })) yield m;
    }
  }

  private async resolve(
    name: string,
    signal?: AbortSignal,
  ): Promise<{ tool: BuiltinTool; check: (args: Record<string, unknown>) => ReturnType<typeof validateArguments> } | null> {
    const builtin = this.builtins.get(name);
    if (builtin) {
      const tool = this.implementation(name, builtin);
      return {
        tool: tool as BuiltinTool,
        check: (args) => validateArguments(name, tool.schema, args, builtin.required, builtin.expected),
      };
    }
    if (!name.startsWith('mcp__') || !this.mcp.hasServers) return null;
    if (!this.mcp.connected) await this.mcp.connect(signal);
    const tool = this.mcp.listTools().find((t) => t.definition.name === name);
    // MCP servers validate their own arguments; here only the JSON-object shape is checked.
    return tool ? { tool, check: (args) => ({ ok: true, value: args }) } : null;
  }

  /** Null once the scratchpad exists (sandboxed commands bind it, tools write there); else why it cannot. */
  private makeScratchpad(): Promise<string | null> {
    const dir = this.config.sessionScratchpadDir;
    if (!dir) return Promise.resolve(null);
    this.scratchpadMade ??= mkdir(dir, { recursive: true }).then(
      () => null,
      (err: unknown) => {
        this.scratchpadMade = undefined;
        return `Cannot create the session scratchpad ${dir}: ${errorMessage(err)}`;
      },
    );
    return this.scratchpadMade;
  }

  /** This Environment's implementation of a built-in tool, made at its first call. */
  private implementation(name: string, builtin: AssembledTool): ValidatedTool {
    const made = (this.made ??= new Map());
    let tool = made.get(name);
    if (!tool) made.set(name, (tool = builtin.factory(builtin.definition, { commands: this.commands, subagents: this.subagents })));
    return tool;
  }

  onBackgroundNotice(listener: (notice: BackgroundNotice) => void): () => void {
    return this.notices.subscribe(listener);
  }

  listBackgroundCommands(): BackgroundCommandInfo[] {
    return this.commands.list();
  }

  killBackgroundCommand(processId: string): boolean {
    if (!this.commands.get(processId)) return false;
    void this.commands.kill(processId);
    return true;
  }

  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      await Promise.all([this.commands.disposeAll(), this.subagents.disposeAll(), this.mcp.dispose()]);
    })();
    return this.disposing;
  }
}
