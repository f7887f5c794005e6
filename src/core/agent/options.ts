/**
 * What composes an Agent (gateway.md §2, engine.md §0, §6): plain data (ids, directories, the model
 * descriptor, engine settings) checked with zod at `createAgent`, plus the builders the state layer
 * injects (model factory, environment, system prompt, command policy, clock). Nothing here reads files.
 */
import * as z from 'zod';
import type {
  EnvironmentInterface, ModelFactory, SubagentRunner, ThinkingLevel, ToolDefinition,
} from '../interfaces';
import { THINKING_LEVELS } from '../interfaces';
import type { CommandPolicy } from '../engine/approval';
import type { Clock } from '../engine/clock';
import type { CompactionConfig } from '../engine/compaction';
import type { OmniMessage } from '../omnimessage/types';
import type { JsonPiece } from '../json-splice';
import type { PromptHalves } from './prompt-share';

export interface ModelDescriptor {
  provider: string;
  modelId: string;
  contextWindow?: number | string;
  /** Whether the model takes images (steering images, tool choice). Default true. */
  vision?: boolean;
}

export interface ModelFactoryContext {
  sessionId: string;
  model: ModelDescriptor;
  /** Tools offered to the model (empty for the title-only factory). */
  tools: ToolDefinition[];
  systemPrompt: string;
  /** `JSON.stringify(systemPrompt)` as UTF-8, its shared part encoded once per agent (what a request body carries). */
  systemPromptJson?: () => readonly JsonPiece[];
  /** `systemPrompt`'s token estimate (engine.md §3), known without reading the prompt. */
  systemPromptTokens?: number;
  /** The model's default level; a run may override it per request. */
  thinkingLevel: ThinkingLevel;
}

export interface EnvironmentContext {
  sessionId: string;
  workspace: string;
  scratchpadDir: string;
  model: ModelDescriptor;
  /** Present for top-level sessions only: children get no subagent tools (depth limit 1). */
  subagentRunner?: SubagentRunner;
  isSubagent: boolean;
}

export interface SystemPromptContext {
  projectId: string;
  agentId: string;
  agentStateDir: string;
  sessionId: string;
  workspace: string;
  /** `workspace` was made just now for this session (a temporary workspace, a folder and not a link). */
  freshWorkspace?: boolean;
  model: ModelDescriptor;
  isSubagent: boolean;
}

export interface EngineSettings {
  /** Requests per Task; -1 (default) = unlimited. */
  max_turns?: number;
  /** Absent = compaction unsupported for this Agent. */
  compaction?: CompactionConfig;
  /** The model's default thinking level. Default `medium`. */
  thinking_level?: ThinkingLevel;
}

/** Whose trace a written batch belongs to. */
export interface TracedSessionInfo {
  sessionId: string;
  /** The session that started this one, for a subagent created in this process. */
  parentSessionId?: string;
  provider: string;
  modelId: string;
}

export interface AgentOptions {
  projectId: string;
  agentId: string;
  /** `<root>/<project>/agents/<agent>/traces` */
  tracesDir: string;
  /** `<root>/<project>/agents/<agent>/agent_state` */
  agentStateDir: string;
  /** Root of per-session scratchpads; default `<agent>/scratchpad` next to the agent state. */
  scratchpadDir?: string;
  /** Where temporary workspaces go; default `<agent>/workspaces`. */
  workspacesDir?: string;
  /** The model new sessions use. */
  model: ModelDescriptor;
  /** Finds the model a resumed session or a subagent names; default: only `model` itself. */
  resolveModel?: (provider: string, modelId: string) => ModelDescriptor | undefined;
  /** Called once per Session (and once more for titles): `create()` per model context. */
  modelFactory: (ctx: ModelFactoryContext) => ModelFactory;
  environment: (ctx: EnvironmentContext) => EnvironmentInterface;
  /** The session's prompt, as text or as the halves its agent's sessions share and do not (`PromptHalves`). */
  systemPrompt: (ctx: SystemPromptContext) => string | PromptHalves | Promise<string | PromptHalves>;
  engine?: EngineSettings;
  commandPolicy?: CommandPolicy;
  clock?: Clock;
  /** Session id source (tests); default `newSessionId()`. */
  newSessionId?: () => string;
  /** Trace I/O failures (tracing is best-effort); default: a line on stderr. */
  onTraceError?: (err: Error, sessionId: string) => void;
  /** Every batch of envelopes once it is in a session's trace (a host indexes usage and activity from it). */
  onTraceWritten?: (msgs: readonly OmniMessage[], who: TracedSessionInfo) => void;
  /** Options of another agent a subagent may run as (`run_subagent agent_id`); absent = only this agent. */
  subagentAgent?: (agentId: string) => AgentOptions | undefined;
}

/** Built for each check and then let go: agents are made at start and on a reload, not often enough to hold it. */
function buildOptionsSchema() {
  const nonEmpty = z.string().trim().min(1, 'must not be empty');
  const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `expected a function (${what})`);

  const ModelSchema = z.object({
    provider: nonEmpty,
    modelId: nonEmpty,
    contextWindow: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'expected digits')]).optional(),
    vision: z.boolean().optional(),
  });

  const CompactionSchema = z.object({
    max_context_length: z.number().int().optional(),
    max_session_turns: z.number().int().optional(),
    mode: z.enum(['summarize', 'discard']).optional(),
    prompt: z.string().min(1, 'must not be empty'),
  });

  return z.object({
    projectId: nonEmpty,
    agentId: nonEmpty,
    tracesDir: nonEmpty,
    agentStateDir: nonEmpty,
    scratchpadDir: nonEmpty.optional(),
    workspacesDir: nonEmpty.optional(),
    model: ModelSchema,
    resolveModel: fn('provider, modelId → model').optional(),
    modelFactory: fn('context → ModelFactory'),
    environment: fn('context → EnvironmentInterface'),
    systemPrompt: fn('context → string'),
    engine: z
      .object({
        max_turns: z.number().int().refine((n) => n > 0 || n === -1, 'must be > 0 or -1').optional(),
        compaction: CompactionSchema.optional(),
        thinking_level: z.enum(THINKING_LEVELS as [ThinkingLevel, ...ThinkingLevel[]]).optional(),
      })
      .optional(),
    commandPolicy: fn('toolCall → {rule} | undefined').optional(),
    clock: z.object({ now: fn('now'), sleep: fn('sleep') }).optional(),
    newSessionId: fn('() → id').optional(),
    onTraceError: fn('(err, sessionId) → void').optional(),
    onTraceWritten: fn('(msgs, who) → void').optional(),
    subagentAgent: fn('agentId → AgentOptions').optional(),
  });
}

/** Throws a TypeError naming every bad field when the options are unusable. */
export function validateAgentOptions(o: unknown): AgentOptions {
  const r = buildOptionsSchema().safeParse(o);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(options)'}: ${i.message}`);
    throw new TypeError(`invalid agent options: ${issues.join('; ')}`);
  }
  return o as AgentOptions;
}
