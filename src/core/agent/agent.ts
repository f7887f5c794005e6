/**
 * `createAgent(options)`: the composition root of the engine (engine.md §0, §5). It creates Sessions
 * (id, workspace, scratchpad, assembled system prompt, frozen `session_meta`, Environment, model factory,
 * trace writer, context engine, subagent runner) and resumes them from their latest trace file by
 * positional replay. `resumeSession` reports every failure as a typed result, never by throwing.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as b from '../omnimessage/builders';
import { zeroCounts } from '../omnimessage/tokens';
import type { ThinkingLevel, ToolDefinition } from '../interfaces';
import type { SessionMetaMessage } from '../omnimessage/types';
import { ContextEngine } from '../engine/context-engine';
import { replayTrace, type ResumeState } from '../engine/replay';
import { isSessionId, newSessionId } from '../trace/paths';
import { listTraceFiles } from '../trace/paths';
import { readLatestTrace } from '../trace/reader';
import { TraceWriter } from '../trace/writer';
import { validateAgentOptions, type AgentOptions, type ModelDescriptor, type ModelFactoryContext, type TracedSessionInfo } from './options';
import { defineLazy } from '../lazy-property';
import { randomHex } from '../random-hex';
import { makeDirSync } from '../make-dir-sync';
import { PromptShare, withHeldPrompt, type HeldPrompt } from './prompt-share';
import { Session, type SessionCore } from './session';
import { SessionSubagentRunner, type SubagentSpawnPlan } from './subagents';

export type ResumeErrorCode =
  | 'invalid_session_id' | 'not_found' | 'empty' | 'no_session_meta' | 'io' | 'model_unavailable' | 'workspace_missing'
  /** An injected builder (environment, model factory) threw while the session was being assembled. */
  | 'build_failed';
export interface ResumeError {
  code: ResumeErrorCode;
  message: string;
}
export type ResumeResult = { ok: true; session: Session } | { ok: false; error: ResumeError };

export interface CreateSessionOptions {
  /** An existing directory; absent = a fresh temporary workspace under the agent. */
  workspace?: string;
  source?: 'subagent' | 'schedule';
  /** A model of the agent's project other than its default (a schedule's `provider` + `model_id`); an unknown one is refused. */
  model?: { provider: string; modelId: string };
  /**
   * The id a host already gave a session that never wrote its trace (it was opened, then the process
   * ended before its first run): the session starts under that id. Refused when the id has traces.
   */
  sessionId?: string;
}

export interface Agent {
  readonly projectId: string;
  readonly agentId: string;
  readonly options: AgentOptions;
  createSession(opts?: CreateSessionOptions): Promise<Session>;
  resumeSession(sessionId: string): Promise<ResumeResult>;
}

interface Build {
  id: string;
  meta: SessionMetaMessage;
  workspace: string;
  model: ModelDescriptor;
  systemPrompt: HeldPrompt;
  depth: number;
  writer: TraceWriter;
  metaFirst: boolean;
  resume?: ResumeState;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

export function createAgent(rawOptions: AgentOptions): Agent {
  const options = validateAgentOptions(rawOptions);
  return new AgentImpl(options);
}

class AgentImpl implements Agent {
  readonly projectId: string;
  readonly agentId: string;
  /** The agent's directories, resolved once (every new session names them). */
  private readonly stateDir: string;
  private readonly workspacesDir: string;
  private readonly scratchpadRoot: string;
  /** Every session's system prompt is kept as this agent's shared head plus its own rest. */
  private readonly prompts = new PromptShare();

  constructor(readonly options: AgentOptions) {
    this.projectId = options.projectId;
    this.agentId = options.agentId;
    this.stateDir = resolve(options.agentStateDir);
    const agentDir = dirname(this.stateDir);
    this.workspacesDir = options.workspacesDir ? resolve(options.workspacesDir) : join(agentDir, 'workspaces');
    this.scratchpadRoot = options.scratchpadDir ? resolve(options.scratchpadDir) : join(agentDir, 'scratchpad');
  }

  async createSession(opts: CreateSessionOptions = {}): Promise<Session> {
    let model = this.options.model;
    if (opts.model) {
      const found = this.resolveModel(opts.model.provider, opts.model.modelId);
      if (!found) throw new TypeError(`createSession: unknown model ${opts.model.provider}/${opts.model.modelId}`);
      model = found;
    }
    return this.create(opts, model, 0, undefined);
  }

  async resumeSession(sessionId: string): Promise<ResumeResult> {
    try {
      return await this.resume(sessionId);
    } catch (e) {
      return { ok: false, error: { code: 'build_failed', message: `cannot resume ${String(sessionId)}: ${e instanceof Error ? e.message : String(e)}` } };
    }
  }

  private async resume(sessionId: string): Promise<ResumeResult> {
    if (typeof sessionId !== 'string' || !isSessionId(sessionId)) {
      return { ok: false, error: { code: 'invalid_session_id', message: `not a session id: ${JSON.stringify(sessionId)}` } };
    }
    const read = await readLatestTrace(this.options.tracesDir, sessionId);
    if (!read.ok) return { ok: false, error: { code: read.error.code, message: read.error.message } };
    const meta = read.file.meta;
    const m = meta.payload;
    const model = this.resolveModel(m.provider, m.model_id);
    if (!model) {
      return { ok: false, error: { code: 'model_unavailable', message: `session ${sessionId} uses model ${m.provider}/${m.model_id}, which this agent does not know` } };
    }
    if (!(await isDirectory(m.workspace))) {
      return { ok: false, error: { code: 'workspace_missing', message: `workspace of session ${sessionId} is gone: ${m.workspace}` } };
    }
    const state = replayTrace(read.file.messages, { fileIndex: read.file.index });
    const writer = await TraceWriter.resume(this.options.tracesDir, sessionId);
    this.watch(writer, { sessionId, provider: m.provider, modelId: m.model_id });
    if (state.closeDanglingCompaction) {
      await writer.append(state.closeDanglingCompaction);
      delete state.closeDanglingCompaction;
    }
    const systemPrompt = this.prompts.hold(m.system_prompt);
    const session = await this.build({
      id: sessionId,
      meta: withHeldPrompt(meta, systemPrompt),
      workspace: m.workspace,
      model: { ...model, contextWindow: model.contextWindow ?? m.model_context_window },
      systemPrompt,
      depth: m.source === 'subagent' ? 1 : 0,
      writer,
      metaFirst: false,
      resume: state,
    });
    // A resumed session is about to run: its builders run now, so a failing one is this result's build_failed.
    session.assembleNow();
    return { ok: true, session };
  }

  private resolveModel(provider: string, modelId: string): ModelDescriptor | undefined {
    if (this.options.resolveModel) return this.options.resolveModel(provider, modelId);
    const own = this.options.model;
    return own.provider === provider && own.modelId === modelId ? own : undefined;
  }

  private async create(opts: CreateSessionOptions, model: ModelDescriptor, depth: number, parentSessionId: string | undefined): Promise<Session> {
    const id = opts.sessionId ?? this.options.newSessionId?.() ?? newSessionId();
    if (!isSessionId(id)) throw new TypeError(`${opts.sessionId !== undefined ? 'createSession: sessionId' : 'newSessionId returned'} is not a valid session id: ${JSON.stringify(id)}`);
    if (opts.sessionId !== undefined && (await listTraceFiles(this.options.tracesDir, id)).length > 0) {
      throw new TypeError(`createSession: session ${id} already has traces; resume it instead`);
    }
    let workspace: string;
    if (opts.workspace !== undefined) {
      workspace = resolve(opts.workspace);
      if (!(await isDirectory(workspace))) throw new TypeError(`createSession: workspace is not an existing directory: ${workspace}`);
    } else {
      workspace = join(this.workspacesDir, `tmp-${randomHex(4)}`);
      makeDirSync(workspace);
    }
    const assembled = await this.options.systemPrompt({
      projectId: this.projectId,
      agentId: this.agentId,
      agentStateDir: this.stateDir,
      sessionId: id,
      workspace,
      ...(opts.workspace === undefined ? { freshWorkspace: true } : {}),
      model,
      isSubagent: depth > 0,
    });
    const systemPrompt = typeof assembled === 'string' ? this.prompts.hold(assembled) : this.prompts.holdHalves(assembled);
    const meta = withHeldPrompt(b.sessionMeta({
      session_id: id,
      provider: model.provider,
      model_id: model.modelId,
      model_context_window: model.contextWindow ?? 'unknown',
      system_prompt: systemPrompt.text(),
      agent_state: this.stateDir,
      workspace,
      source: opts.source,
    }), systemPrompt);
    // A new id has no trace yet (checked above when the caller chose it): nothing to heal.
    const writer = new TraceWriter({ tracesDir: this.options.tracesDir, sessionId: id, fresh: true });
    this.watch(writer, { sessionId: id, provider: model.provider, modelId: model.modelId, ...(parentSessionId ? { parentSessionId } : {}) });
    return this.build({ id, meta, workspace, model, systemPrompt, depth, writer, metaFirst: true });
  }

  private watch(writer: TraceWriter, who: TracedSessionInfo): void {
    const id = who.sessionId;
    writer.onError = (err) => {
      if (this.options.onTraceError) this.options.onTraceError(err, id);
      else process.stderr.write(`[trace] ${id}: ${err.message}\n`);
    };
    const observe = this.options.onTraceWritten;
    if (observe) writer.onWritten = (msgs) => observe(msgs, who);
  }

  private async build(x: Build): Promise<Session> {
    const o = this.options;
    // Made by the session's Environment at its first tool call: most sessions never need it.
    const scratchpadDir = join(this.scratchpadRoot, x.id);
    const thinkingLevel = o.engine?.thinking_level ?? 'medium';
    const prompt = x.systemPrompt;
    // The prompt is read where it is used, so a factory that keeps the context keeps no copy of it.
    const factoryContext = (tools: ToolDefinition[]): ModelFactoryContext =>
      defineLazy({ sessionId: x.id, model: x.model, tools, thinkingLevel, systemPromptTokens: prompt.tokens, systemPromptJson: () => prompt.json() }, 'systemPrompt', () => prompt.text());
    const assemble = (): SessionCore => {
      const runner = x.depth === 0 ? new SessionSubagentRunner({
        depth: x.depth,
        plan: (input) => this.planChild(input, x.model, thinkingLevel),
        createChild: (plan) => this.createChild(plan, x.workspace, x.id),
      }) : undefined;
      const environment = o.environment({
        sessionId: x.id,
        workspace: x.workspace,
        scratchpadDir,
        model: x.model,
        isSubagent: x.depth > 0,
        ...(runner ? { subagentRunner: runner } : {}),
      });
      const engine = new ContextEngine({
        environment,
        models: (tools) => o.modelFactory(factoryContext(tools)),
        trace: x.writer,
        sessionMeta: x.meta,
        metaFirst: x.metaFirst,
        ...(o.engine?.max_turns !== undefined ? { maxTurns: o.engine.max_turns } : {}),
        ...(o.engine?.compaction ? { compaction: o.engine.compaction } : {}),
        ...(x.model.contextWindow !== undefined ? { contextWindow: x.model.contextWindow } : {}),
        vision: x.model.vision ?? true,
        ...(o.clock ? { clock: o.clock } : {}),
        ...(o.commandPolicy ? { commandPolicy: o.commandPolicy } : {}),
        ...(x.resume ? { resume: x.resume } : {}),
        sessionId: x.id,
      });
      return { engine, environment, ...(runner ? { onDispose: () => runner.disposeAll() } : {}) };
    };
    return new Session({
      id: x.id,
      meta: x.meta,
      workspace: x.workspace,
      scratchpadDir,
      model: x.model,
      assemble,
      tokens: x.resume ? { ...x.resume.sessionTokens } : zeroCounts(),
      titleModels: () => o.modelFactory(factoryContext([])),
    });
  }

  private planChild(
    input: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel },
    parentModel: ModelDescriptor,
    parentLevel: ThinkingLevel,
  ): SubagentSpawnPlan {
    const agentId = input.agentId && input.agentId !== this.agentId ? input.agentId : undefined;
    if (agentId && !this.options.subagentAgent?.(agentId)) throw new Error(`unknown agent: ${agentId}`);
    let model = parentModel;
    if (input.modelId !== undefined || input.provider !== undefined) {
      const provider = input.provider ?? parentModel.provider;
      const modelId = input.modelId ?? parentModel.modelId;
      const found = this.resolveModel(provider, modelId);
      if (!found) throw new Error(`unknown model: ${provider}/${modelId}`);
      model = found;
    }
    const plan: SubagentSpawnPlan = { model, thinkingLevel: input.thinkingLevel ?? parentLevel };
    if (agentId) plan.agentId = agentId;
    return plan;
  }

  private async createChild(plan: SubagentSpawnPlan, workspace: string, parentSessionId: string): Promise<Session> {
    if (plan.agentId) {
      const other = this.options.subagentAgent?.(plan.agentId);
      if (!other) throw new Error(`unknown agent: ${plan.agentId}`);
      return assembled(await (createAgent(other) as AgentImpl).create({ workspace, source: 'subagent' }, plan.model, 1, parentSessionId));
    }
    return assembled(await this.create({ workspace, source: 'subagent' }, plan.model, 1, parentSessionId));
  }
}

/** A child session runs as soon as it exists: its builders run at spawn, where a failure is the spawn's. */
function assembled(session: Session): Session {
  session.assembleNow();
  return session;
}
