/**
 * An Agent wired to scripted models and fake Environments in a temp PENGUIN_HOME-like tree; records what
 * the builders were given so tests can check the composition.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createAgent, type Agent } from '../../../src/core/agent/agent';
import type { AgentOptions, EnvironmentContext, ModelFactoryContext } from '../../../src/core/agent/options';
import { tracesDir as tracesDirOf } from '../../../src/core/trace/paths';
import { ScriptedModels } from '../../fakes/scripted-llm';
import { FakeEnvironment, type FakeTool } from '../../fakes/fake-environment';
import { FakeClock, TempDirs } from '../engine/helpers';

export interface AgentRig {
  agent: Agent;
  root: string;
  tracesDir: string;
  agentStateDir: string;
  /** Scripted models per session id; `modelsFor` creates them on first use from `nextScript`. */
  models: Map<string, ScriptedModels>;
  envs: Map<string, FakeEnvironment>;
  factoryContexts: ModelFactoryContext[];
  envContexts: EnvironmentContext[];
  scripts: ScriptedModels[];
  clock: FakeClock;
}

export async function agentRig(
  dirs: TempDirs,
  o: { scripts?: ScriptedModels[]; tools?: Record<string, FakeTool> | ((ctx: EnvironmentContext) => Record<string, FakeTool>); options?: Partial<AgentOptions> } = {},
): Promise<AgentRig> {
  const root = await dirs.make('pg-agent-');
  const agentStateDir = join(root, 'default_project', 'agents', 'default_agent', 'agent_state');
  await mkdir(agentStateDir, { recursive: true });
  const tracesDir = tracesDirOf(root, 'default_project', 'default_agent');
  const scripts = [...(o.scripts ?? [])];
  const models = new Map<string, ScriptedModels>();
  const envs = new Map<string, FakeEnvironment>();
  const factoryContexts: ModelFactoryContext[] = [];
  const envContexts: EnvironmentContext[] = [];
  const clock = new FakeClock();
  const modelsFor = (id: string): ScriptedModels => {
    let m = models.get(id);
    if (!m) {
      m = scripts.shift() ?? new ScriptedModels([]);
      models.set(id, m);
    }
    return m;
  };
  const agent = createAgent({
    projectId: 'default_project',
    agentId: 'default_agent',
    tracesDir,
    agentStateDir,
    model: { provider: 'fake', modelId: 'scripted', contextWindow: 64000 },
    modelFactory: (ctx) => {
      factoryContexts.push(ctx);
      return modelsFor(ctx.sessionId);
    },
    environment: (ctx) => {
      envContexts.push(ctx);
      const env = new FakeEnvironment(typeof o.tools === 'function' ? o.tools(ctx) : (o.tools ?? {}));
      if (ctx.subagentRunner) env.services = { subagentRunner: ctx.subagentRunner };
      envs.set(ctx.sessionId, env);
      return env;
    },
    systemPrompt: (ctx) => `You are ${ctx.agentId} in ${ctx.workspace}${ctx.isSubagent ? ' (subagent)' : ''}.`,
    clock,
    engine: { thinking_level: 'low' },
    ...o.options,
  });
  return { agent, root, tracesDir, agentStateDir, models, envs, factoryContexts, envContexts, scripts, clock };
}
