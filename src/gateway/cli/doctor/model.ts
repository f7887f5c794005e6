/**
 * Doctor's model check: each distinct project/agent the config routes to resolves its model with the
 * gateway's own loader (`loadAgent` as AgentPool calls it, but `dryRun`: nothing written, a missing project
 * read as its first start creates it) and env; then the gateway's own request through its client:
 * `modelSetupProblem`, `GET /models` with the key, else a one-token chat completion. One line per distinct
 * model; fails whenever `start` could not answer, warns only on provider trouble (408, 429, 5xx).
 */
import { SecretRedactor } from '../../../adapters/render';
import { loadAgent } from '../../../core/compose';
import { listModels, pingModel, type ClientTarget, type EndpointAnswer } from '../../../core/llm';
import { DEFAULT_OPENAI_BASE_URL, effectiveModels, modelSetupProblem, type ResolvedModel } from '../../../core/state';
import type { GatewayConfig } from '../../config';
import type { CheckResult } from './types';

type Env = Record<string, string | undefined>;

/** One model as routed agents resolve it (the agents sharing it and what fixes it refer to). */
interface Resolved {
  agents: string[];
  model: ResolvedModel;
  projectFile: string;
  /** The model id comes from PENGUIN_MODEL (not from the project file). */
  fromEnv: boolean;
  /** The project does not exist yet: a first start creates it with this model. */
  firstStart: boolean;
}

type Failed = { agent: string; detail: string; fix: string };

const blank = (s: string | undefined): boolean => s === undefined || s.trim() === '';

export async function checkModels(config: Pick<GatewayConfig, 'home' | 'default_route' | 'routes'>, env: Env, timeoutMs: number): Promise<CheckResult[]> {
  const agents = [...new Map([config.default_route, ...config.routes].map((r) => [`${r.project}/${r.agent}`, r])).values()];
  const resolved: Resolved[] = [];
  const failed: Failed[] = [];
  for (const r of agents) {
    const agent = `${r.project}/${r.agent}`;
    const loaded = await loadAgent({ home: config.home, projectId: r.project, agentId: r.agent, env, dryRun: true });
    const m = loaded.ok ? loaded.state.resolveModel() : undefined;
    if (!loaded.ok || !m?.ok) {
      const errors = !loaded.ok ? loaded.errors : m && !m.ok ? [m.error] : [];
      const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
      failed.push({ agent, detail: `agent ${agent} cannot be loaded: ${errors[0]?.message ?? 'unknown error'}${more}`, fix: `fix the file named above; until then start answers this agent's chats with "could not be loaded"` });
      continue;
    }
    const same = resolved.find((x) => sameConnection(x.model, m.value));
    if (same) {
      same.agents.push(agent);
      continue;
    }
    const projectFile = loaded.state.paths.projectConfig;
    resolved.push({ agents: [agent], model: m.value, projectFile, fromEnv: effectiveModels(loaded.state.project, env).defaultFrom === 'env', firstStart: loaded.state.created.project });
  }
  const named = resolved.length + failed.length > 1;
  return [
    ...failed.map((f): CheckResult => ({ name: named ? `model ${f.agent}` : 'model', status: 'fail', detail: f.detail, fix: f.fix })),
    ...(await Promise.all(resolved.map(async (x) => ({ ...(await checkOne(x, timeoutMs)), name: named ? `model ${x.agents[0]}` : 'model' })))),
  ];
}

function sameConnection(a: ResolvedModel, b: ResolvedModel): boolean {
  const k = (m: ResolvedModel) => JSON.stringify([m.entry.provider, m.connection.modelId, m.connection.apiKey, m.connection.baseUrl, m.connection.clientType]);
  return k(a) === k(b);
}

async function checkOne(x: Resolved, timeoutMs: number): Promise<Omit<CheckResult, 'name'>> {
  const { entry, connection: conn } = x.model;
  const label = `${entry.provider}/${entry.model_id}`;
  const base = (conn.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const note = [
    x.agents.length > 1 ? `used by ${x.agents.join(', ')}` : '',
    x.firstStart ? `${x.agents[0].split('/')[0]} does not exist yet: start creates it with this model` : '',
  ].filter(Boolean).join('; ');
  const withNote = (detail: string) => (note ? `${detail} (${note})` : detail);
  // The redactor skips placeholder keys too short to be secrets ("x", "k"): masking them would cut into every word.
  const redactor = new SecretRedactor();
  redactor.add([conn.apiKey]);
  const scrub = (s: string) => redactor.redact(s);
  const result = (status: CheckResult['status'], detail: string, fix?: string): Omit<CheckResult, 'name'> => ({ status, detail: scrub(withNote(detail)), ...(fix ? { fix: scrub(fix) } : {}) });

  const problem = modelSetupProblem(x.model, x.projectFile);
  // the fix that chats and the start-up log print ends by pointing here; doctor drops that pointer
  if (problem) return result('fail', `${problem.problem}: start answers every message with "I can't answer yet"`, problem.fix.replace(/; `penguin-gateway doctor` checks it$/, ''));

  const keySource = !blank(entry.api_key) ? `api_key of ${label} in ${x.projectFile}` : 'OPENAI_API_KEY';
  const baseSource = !blank(entry.base_url) ? `base_url of ${label} in ${x.projectFile}` : blank(conn.baseUrl) ? `OPENAI_BASE_URL (unset: ${DEFAULT_OPENAI_BASE_URL})` : 'OPENAI_BASE_URL';
  const keyRejected = (status: number, message?: string) =>
    result('fail', `${base} rejected the API key for ${label} (HTTP ${status}${message ? `: ${message}` : ''})`, conn.apiKey ? `set ${keySource} to a valid key for ${base}` : `${base} needs a key: set OPENAI_API_KEY (or api_key of ${label} in ${x.projectFile})`);
  const unreachable = (message: string) => result('fail', `cannot reach ${base}: ${message}`, `check ${baseSource} and that the model server is running and reachable`);
  const setupFailed = (a: Extract<EndpointAnswer<unknown>, { kind: 'setup' }>) =>
    result('fail', `${label} cannot be called: ${a.failure.errorMessage ?? a.failure.status}`, a.failure.status === 'auth' ? `set OPENAI_API_KEY (or api_key of ${label} in ${x.projectFile})` : `set client_type of ${label} in ${x.projectFile} to openai-chat, the protocol this gateway speaks`);
  const target: ClientTarget = { modelId: conn.modelId, ...(conn.apiKey ? { apiKey: conn.apiKey } : {}), ...(conn.baseUrl ? { baseUrl: conn.baseUrl } : {}), ...(conn.clientType ? { clientType: conn.clientType } : {}) };
  const keyWord = conn.apiKey ? 'accepted the key' : 'answered without a key';

  const list = await listModels(target, timeoutMs);
  if (list.kind === 'setup') return setupFailed(list);
  if (list.kind === 'network' || list.kind === 'timeout') return unreachable(list.message);
  if (list.kind === 'http' && (list.auth || list.status === 401 || list.status === 403)) return keyRejected(list.status, list.message);
  const ids = list.kind === 'ok' ? list.value : [];
  if (ids.includes(conn.modelId)) return result('ok', `${label} at ${base} ${keyWord}; /models lists ${conn.modelId} (${ids.length} model${ids.length === 1 ? '' : 's'})`);
  const listing = list.kind === 'ok' ? `/models does not list ${conn.modelId}` : list.kind === 'http' ? `/models: HTTP ${list.status}` : `/models: ${list.message}`;

  const ping = await pingModel(target, timeoutMs);
  switch (ping.kind) {
    case 'ok':
      return result('ok', `${label} at ${base} answered a one-token request${conn.apiKey ? '' : ' without a key'} (${listing})`);
    case 'setup':
      return setupFailed(ping);
    case 'network':
      return unreachable(ping.message);
    case 'timeout':
      return result('fail', `${base} did not answer a one-token request for ${label}: ${ping.message}`, 'check that the model server is running and not overloaded (doctor --timeout <ms> waits longer)');
    case 'other':
      return result('fail', `${base} answered a one-token request for ${label} in a form the client cannot read: ${ping.message}`, `check ${baseSource}: it must be an OpenAI-compatible endpoint (usually ending in /v1)`);
    case 'http': {
      const why = `HTTP ${ping.status}${ping.message ? `: ${ping.message}` : ''}`;
      if (ping.auth || ping.status === 401 || ping.status === 403) return keyRejected(ping.status, ping.message);
      if (ping.status === 404 || ping.code === 'model_not_found' || /model.*(not found|does ?n[o']t exist|not exist)/i.test(ping.message ?? '')) {
        const choices = ids.length > 0 ? `one of: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}` : `a model ${base} serves`;
        const fix = x.fromEnv ? `set PENGUIN_MODEL to ${choices}` : `set model_id of ${label} (and default_model) in ${x.projectFile} to ${choices}`;
        return result('fail', `model ${conn.modelId} not found at ${base} (${why}; ${listing})`, fix);
      }
      if (ping.status === 408 || ping.status === 429 || ping.status >= 500) {
        return result('warn', `${base} could not answer a one-token request for ${label} (${why}): provider trouble, so the setup could not be verified`, 'try again later; if it persists, check the provider\'s status or limits');
      }
      return result('fail', `${base} refused a one-token request for ${label} (${why})`, `check model_id and client_type of ${label} in ${x.projectFile}, and ${baseSource}`);
    }
  }
}
