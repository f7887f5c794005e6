/**
 * Composition (engine.md §6, issue "State layer"): turns an agent directory into a working Agent. It loads
 * the Agent State, then hands the engine builders for the real OpenAI-compatible model, the Environment
 * (built-in tools + MCP servers, vault in tool env), the subagent runner and the vision describer. Never
 * throws: a bad file or a missing model comes back as the state layer's precise error list.
 */
import { createAgent, type Agent } from '../agent';
import type { AgentOptions, ModelDescriptor } from '../agent/options';
import { Environment } from '../environment';
import type { CommandSandbox, ToolConfinement, ToolDefinitionConfig, VisionDescriberService } from '../interfaces';
import type { SubprocessEnvPolicy } from '../environment/subprocess-env';
import { bareGenerate, createModelFactory } from '../llm';
import {
  effectiveModels, envModelEntry, loadAgentState, recordModelEntry, sessionModelSettings,
  type AgentState, type LoadAgentStateOptions, type ResolvedModel, type StateFileError,
} from '../state';
import type { ModelEntry } from '../llm/model-entry';
import type { Clock } from '../engine/clock';

export interface LoadAgentOptions extends LoadAgentStateOptions {
  /** Environment the model credentials and tool subprocesses derive from (default process.env). */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  onTraceError?: (err: Error, sessionId: string) => void;
  /** Each batch of envelopes once it is in a session's trace (AgentOptions.onTraceWritten). */
  onTraceWritten?: AgentOptions['onTraceWritten'];
  /** Where Environment configuration warnings go (skipped tools, failed MCP servers). */
  warn?: (message: string) => void;
  /** How far tools reach (a host's isolation policy); absent = PenguinHarness's: host env, no confinement, no sandbox. */
  isolation?: ToolIsolation;
}

/**
 * A host's tool isolation (gateway.md §6): the env policy, the data root no tool may touch (the session's
 * workspace, scratchpad and the agent's memory, skills and schedules stay reachable), and how commands
 * run (bubblewrap binds are completed per session: workspace and scratchpad writable, skills read-only).
 */
export interface ToolIsolation {
  envPolicy: SubprocessEnvPolicy;
  dataRoot?: string;
  sandbox?: { kind: 'bubblewrap'; binary: string; network: boolean; readonly: string[] } | { kind: 'refuse'; reason: string };
}

export type LoadAgentResult = { ok: true; agent: Agent; state: AgentState } | { ok: false; errors: StateFileError[] };

/** Tools a subagent session must not have (depth limit 1). */
const SUBAGENT_TOOLS = new Set(['run_subagent', 'input_subagent', 'kill_subagent']);

const descriptorOf = (m: ResolvedModel): ModelDescriptor => ({
  provider: m.entry.provider,
  modelId: m.entry.model_id,
  contextWindow: m.entry.context_window,
  vision: m.entry.vision,
});

function visionService(state: AgentState): VisionDescriberService {
  const vm = state.visionModel();
  if (!vm || !vm.ok) return { modelId: null };
  const { entry, connection } = vm.value;
  const config = { modelId: connection.modelId, apiKey: connection.apiKey, baseUrl: connection.baseUrl, clientType: connection.clientType, vision: true };
  return {
    modelId: entry.model_id,
    describe: (image, prompt, signal) => bareGenerate(config, prompt, { images: [image], signal }),
  };
}

export async function loadAgent(opts: LoadAgentOptions = {}): Promise<LoadAgentResult> {
  const env = opts.env ?? process.env;
  const loaded = await loadAgentState({ ...opts, env });
  if (!loaded.ok) return { ok: false, errors: loaded.errors };
  const state = loaded.value;
  const model = state.resolveModel();
  if (!model.ok) return { ok: false, errors: [model.error] };
  const vision = visionService(state);

  const resolveEntry = (provider: string, modelId: string) => {
    const r = state.resolveModel({ provider, model_id: modelId });
    return r.ok ? r.value : undefined;
  };
  const cfg = state.config;
  const options: AgentOptions = {
    projectId: state.paths.projectId,
    agentId: state.paths.agentId,
    tracesDir: state.paths.tracesDir,
    agentStateDir: state.paths.stateDir,
    scratchpadDir: state.paths.scratchpadDir,
    workspacesDir: state.paths.workspacesDir,
    model: descriptorOf(model.value),
    resolveModel: (provider, modelId) => {
      const m = resolveEntry(provider, modelId);
      return m && descriptorOf(m);
    },
    modelFactory: (ctx) => {
      // A resumed session whose model left the project config falls back to the project default.
      const m = resolveEntry(ctx.model.provider, ctx.model.modelId) ?? model.value;
      const settings = sessionModelSettings(m, cfg, ctx.thinkingLevel);
      return createModelFactory({
        entry: m.entry,
        env,
        tools: ctx.tools,
        systemPrompt: () => ctx.systemPrompt,
        ...(ctx.systemPromptJson ? { systemPromptJson: ctx.systemPromptJson } : {}),
        ...(ctx.systemPromptTokens !== undefined ? { systemPromptTokens: ctx.systemPromptTokens } : {}),
        maxTokens: settings.maxTokens,
        thinkingLevel: settings.thinkingLevel,
        requestTimeoutMs: settings.requestTimeoutMs,
      });
    },
    environment: (ctx) => {
      const iso = opts.isolation;
      const p = state.paths;
      const confinement: ToolConfinement | undefined = iso?.dataRoot
        ? { roots: [ctx.workspace, ctx.scratchpadDir, p.memoryDir, p.skillsDir, p.scheduleDir], forbidden: [iso.dataRoot] }
        : undefined;
      const sandbox: CommandSandbox | undefined = iso?.sandbox?.kind === 'bubblewrap'
        ? { ...iso.sandbox, writable: [ctx.workspace, ctx.scratchpadDir], readonly: [p.skillsDir, ...iso.sandbox.readonly], hidden: iso.dataRoot ? [iso.dataRoot] : [] }
        : iso?.sandbox;
      const customTools: ToolDefinitionConfig[] = ctx.isSubagent
        ? state.toolConfig.customTools.filter((t) => !SUBAGENT_TOOLS.has(t.name))
        : state.toolConfig.customTools;
      return new Environment(
        {
          workspaceDir: ctx.workspace,
          toolConfig: { customTools, mcpServers: state.toolConfig.mcpServers },
          sessionScratchpadDir: ctx.scratchpadDir,
          services: { subagentRunner: ctx.subagentRunner, visionDescriber: vision },
          vault: { ...state.vault },
          vision: ctx.model.vision ?? true,
          ...(confinement ? { confinement } : {}),
          ...(sandbox ? { sandbox } : {}),
        },
        { hostEnv: env as NodeJS.ProcessEnv, warn: opts.warn, ...(iso ? { envPolicy: iso.envPolicy } : {}) },
      );
    },
    systemPrompt: (ctx) =>
      state.systemPromptHalves({ sessionId: ctx.sessionId, workspaceDir: ctx.workspace, ...(ctx.freshWorkspace ? { freshWorkspace: true } : {}), provider: ctx.model.provider, modelId: ctx.model.modelId }),
    engine: {
      max_turns: cfg.max_turns,
      thinking_level: state.thinkingLevel,
      compaction: {
        max_context_length: cfg.compaction.max_context_length,
        max_session_turns: cfg.compaction.max_session_turns,
        mode: cfg.compaction.mode,
        prompt: cfg.compaction.prompt,
      },
    },
    commandPolicy: (call) => {
      const hit = state.commandPolicy(call);
      return hit ? { rule: hit.rule } : undefined;
    },
    clock: opts.clock,
    onTraceError: opts.onTraceError,
    onTraceWritten: opts.onTraceWritten,
  };
  const defaults = effectiveModels(state.project, env);
  if (defaults.defaultFrom === 'first-entry' || (defaults.defaultFrom === 'env' && !state.project.default_model && state.project.models.length > 0)) {
    const why = defaults.defaultFrom === 'env' ? 'PENGUIN_MODEL' : 'the first [[models]] entry';
    opts.warn?.(`${state.paths.projectConfig} has no default_model: new sessions use ${model.value.entry.provider}/${model.value.entry.model_id} (${why})`);
  }
  const agent = createAgent(options);
  const unlisted = envModelEntry(state.project, env);
  return { ok: true, agent: unlisted ? recordingModel(agent, state.paths.projectConfig, unlisted, opts.warn) : agent, state };
}

/**
 * An agent whose first new session writes its env-made model into the project file, so PenguinHarness can
 * resume sessions this agent starts (it refuses a model its project config does not list).
 */
function recordingModel(agent: Agent, projectFile: string, entry: ModelEntry, warn?: (m: string) => void): Agent {
  let recorded: Promise<void> | undefined;
  const record = () =>
    (recorded ??= recordModelEntry(projectFile, entry).then(
      () => undefined,
      (err: unknown) => warn?.(`could not record model ${entry.provider}/${entry.model_id} in ${projectFile}: ${(err as Error).message}`),
    ));
  return {
    get projectId() {
      return agent.projectId;
    },
    get agentId() {
      return agent.agentId;
    },
    get options() {
      return agent.options;
    },
    createSession: async (o) => {
      await record();
      return agent.createSession(o);
    },
    resumeSession: (id) => agent.resumeSession(id),
  };
}
