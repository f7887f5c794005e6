/**
 * The engine's seams (engine.md §2–§4, §7): the model (`LLMInterface`), the tools (`EnvironmentInterface`),
 * the human (`ApproveFn` + `RunOptions`), subagents and vision. The engine sees only OmniMessages through
 * these; providers, processes and platforms stay behind them. Nothing here throws across the seam:
 * failures are messages with a `stop_reason` or an `LLMOutcome`.
 */
import type { ApprovalDecision, MessageOf, OmniMessage, StopReason, TokenCounts, ToolDefinition } from './omnimessage/types';

export type { ToolDefinition } from './omnimessage/types';

export type ToolCallMessage = MessageOf<'tool_call'>;
export type ToolPermission = 'r' | 'rw';
/**
 * Where a tool call's paths lie relative to its Session's confinement: `inside` (workspace, scratchpad…),
 * `outside` (elsewhere: never decided by the approval mode alone) or `forbidden` (the host's data root:
 * the tool refuses whatever the approval says).
 */
export type ToolReach = 'inside' | 'outside' | 'forbidden';
export type ThinkingLevel = 'none' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const THINKING_LEVELS: readonly ThinkingLevel[] = ['none', 'low', 'medium', 'high', 'xhigh', 'max'];
/** Levels a user or `run_subagent` may pick (never `none`). */
export const SELECTABLE_THINKING_LEVELS: readonly ThinkingLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/** Asked once per complete tool_call, sequentially. Hosts answer allow/deny; the command policy may answer forbidden. */
export type ApproveFn = (toolCall: ToolCallMessage) => Promise<ApprovalDecision>;

// ---------------------------------------------------------------- model
export interface GenerativeModelParameters {
  /** Only this turn's new input, all of one role. */
  newMessages: OmniMessage[];
  signal?: AbortSignal;
  /** Overrides the model's default level for this request only. */
  thinkingLevel?: ThinkingLevel;
}

/** The generator's return value (never a yielded message). */
export interface LLMOutcome {
  status: StopReason;
  errorMessage?: string;
  /** A `failed` that can never succeed on retry (e.g. fast mode unsupported): the engine aborts instead of retrying. */
  permanent?: boolean;
}

/** A stateful model bound to one Session's context. Never throws; never retries. */
export interface LLMInterface {
  streamGenerate(params: GenerativeModelParameters): AsyncGenerator<OmniMessage, LLMOutcome>;
  /** Resume: load committed history once, on a fresh object. */
  setHistory?(history: OmniMessage[]): void;
}

/** Builds model objects for a Session: a fresh one per context (start, compaction), plus a bare one-shot for titles. */
export interface ModelFactory {
  /** A new stateful model with this Session's tools and system prompt. */
  create(): LLMInterface;
  /** One-shot text call without tools or system prompt (titles, image descriptions). Never throws: '' on failure. */
  bareGenerate?(prompt: string, opts?: { signal?: AbortSignal; images?: string[]; onUsage?: (u: BareUsage) => void }): Promise<string>;
}

/** What one bare call cost: its request's counts when it completed, else the status it ended with (engine.md §8.5). */
export interface BareUsage {
  /** ISO-8601 UTC, when the request ended. */
  timestamp: string;
  status: StopReason;
  counts?: TokenCounts;
}

export interface GenerativeModelConfig {
  modelId: string;
  apiKey?: string;
  baseUrl?: string;
  clientType?: string;
  tools: ToolDefinition[];
  systemPrompt?: string;
  contextWindow?: number;
  maxTokens?: number;
  fastMode?: boolean;
  thinkingLevel?: ThinkingLevel;
  /** Idle timeout per upstream event; default 120000, ≤0 disables. */
  requestTimeoutMs?: number;
  /** Whether image inputs are sent as images (vision models) or described as text. */
  vision?: boolean;
  /** Session-wide tool_call_id registry, shared across compaction. */
  toolCallIds?: ToolCallIdRegistry;
}

/** Session-wide uniqueness for tool_call_ids (engine.md §3): provider id kept if unused, else `<id>#2`, `#3`… */
export interface ToolCallIdRegistry {
  /** Register a provider id, returning the Session-unique id to use. */
  allocate(providerId: string): string;
  /** Record an id already in history (resume). */
  seed(id: string): void;
  /** The id to send back to the provider (`#n` suffix stripped). */
  outbound(id: string): string;
}

// ---------------------------------------------------------------- tools
export interface ToolDefinitionConfig {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
  permission?: ToolPermission;
  /** Offered only to vision models / only to text-only models; absent = both. */
  forModel?: 'vision' | 'text-only';
  /** ≤0 disables. */
  timeoutMs?: number;
  /** Head-kept cap on the output text; ≤0 disables. */
  maxOutputLength?: number;
  /** false strips the `description` parameter from the schema the model sees. */
  call_description?: boolean;
}

export interface MCPServerConfig {
  name: string;
  config: Record<string, unknown>;
}

export interface ToolConfig {
  customTools: ToolDefinitionConfig[];
  mcpServers: MCPServerConfig[];
}

export interface ToolExecutionRequest {
  toolCall: ToolCallMessage;
  signal?: AbortSignal;
  /** The parent's approve, passed down to subagents. */
  approve?: ApproveFn;
}

/** What a built-in tool reports when it finishes; the Environment frames and closes the output. */
export interface ToolResult {
  /** Self-reported status; outranked by abort, timeout and throws. Default `completed`. */
  stop_reason?: StopReason;
  /** Appended after the (capped) output, e.g. `[exit code: 1]`. */
  note?: string;
  /** data: URLs */
  images?: string[];
}

/** What the Environment hands a built-in tool for one call. */
export interface ToolExecutionContext {
  toolCallId: string;
  /** Merged user-abort + timeout signal. */
  signal: AbortSignal;
  workspaceDir: string;
  sessionScratchpadDir?: string;
  /** Subprocess environment (sanitized host env + vault + forced variables). */
  env: Record<string, string>;
  approve?: ApproveFn;
  services: EnvironmentServices;
  /** Where an absolute path lies (always `inside` without a confinement); file tools refuse `forbidden` paths. */
  reach(absPath: string): Promise<ToolReach>;
  /** Pass a child session's (origin-tagged) message straight through to the stream. */
  forward(msg: OmniMessage): void;
}

/** A built-in tool: yields output text fragments, returns its result. Arguments arrive validated. */
export interface BuiltinTool<A = Record<string, unknown>> {
  definition: ToolDefinitionConfig;
  run(args: A, ctx: ToolExecutionContext): AsyncGenerator<string, ToolResult | void>;
}

/** A report from work that finished in the background (engine.md §2.8). */
export interface BackgroundNotice {
  kind: 'command' | 'subagent';
  id: string;
  status: 'completed' | 'failed';
  /** Short label (≤120 chars) such as the command line. */
  label: string;
  /** Output tail (≤4000 chars). */
  detail: string;
}

export interface BackgroundCommandInfo {
  processId: string;
  pid: number | null;
  cmd: string;
  cwd: string;
  startedAt: number;
  running: boolean;
}

export interface EnvironmentInterface {
  /** Tools offered to the model: built-ins, then MCP. Connects MCP servers lazily on first call. */
  listTools(): Promise<ToolDefinition[]>;
  /** Yields partials then exactly one complete `tool_call_output`; origin-tagged child messages pass through. */
  executeTool(request: ToolExecutionRequest): AsyncGenerator<OmniMessage>;
  toolPermission(name: string): ToolPermission | undefined;
  /** Where the call's path arguments lie (absent = everything is `inside`). */
  toolReach?(toolCall: ToolCallMessage): Promise<ToolReach>;
  /** MCP connect events to stream and trace once, on the first run (empty when no MCP servers). */
  connect?(signal?: AbortSignal): AsyncGenerator<OmniMessage>;
  /** Subscribe to background completions; returns the unsubscribe function. */
  onBackgroundNotice?(listener: (notice: BackgroundNotice) => void): () => void;
  listBackgroundCommands?(): BackgroundCommandInfo[];
  killBackgroundCommand?(processId: string): boolean;
  /** Idempotent: kills managed processes, closes MCP clients. */
  dispose?(): Promise<void> | void;
}

// ---------------------------------------------------------------- subagents & vision
export interface SubagentHandle {
  sessionId: string;
  /** One Task on the child Session; every yielded message already carries the child's origin. */
  run(input: { prompt: string; signal?: AbortSignal; approve?: ApproveFn }): AsyncGenerator<OmniMessage>;
  dispose(): void;
}

export interface SubagentRunner {
  /** Throws on precheck errors (depth limit, unknown agent); the tool turns that into a failed output. */
  spawn(input: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel }): Promise<SubagentHandle>;
}

export interface VisionDescriberService {
  /** null when the Project has no usable `vision_model`. */
  modelId: string | null;
  /** Describe one image (data URL or http URL) following `prompt`. */
  describe?(image: string, prompt: string, signal?: AbortSignal): Promise<string>;
}

export interface EnvironmentServices {
  subagentRunner?: SubagentRunner;
  visionDescriber?: VisionDescriberService;
}

export interface EnvironmentConfig {
  workspaceDir: string;
  toolConfig: ToolConfig;
  sessionScratchpadDir?: string;
  services?: EnvironmentServices;
  vault?: Record<string, string>;
  /** Whether the session model takes images (picks read_image vs describe_image). */
  vision?: boolean;
  /** Where tools may reach without an extra approval, and what they may never touch; absent = unconfined. */
  confinement?: ToolConfinement;
  /** How shell commands are isolated; absent = they run directly on the host. */
  sandbox?: CommandSandbox;
}

export interface ToolConfinement {
  /** Directories a tool may use freely: the workspace, the session scratchpad, parts of the agent state. */
  roots: string[];
  /** Directories no tool may read or write (the host's data root), except where a deeper `roots` entry lies. */
  forbidden: string[];
}

/**
 * Shell commands run under bubblewrap: the system directories read-only, `writable` bound read-write,
 * `readonly` bound read-only, `hidden` covered by an empty tmpfs (where they lie under a bound path),
 * nothing else of the host visible; network namespace shared or not. `refuse` = a sandbox was required
 * but cannot run here: every command fails with `reason` instead of running unconfined.
 */
export type CommandSandbox =
  | { kind: 'bubblewrap'; binary: string; network: boolean; writable: string[]; readonly: string[]; hidden: string[] }
  | { kind: 'refuse'; reason: string };

// ---------------------------------------------------------------- the human
export interface RunOptions {
  signal?: AbortSignal;
  approve?: ApproveFn;
  thinkingLevel?: ThinkingLevel;
}
