/**
 * At start, every routed agent is loaded once (creating its files on a first start): a broken agent is
 * logged at once rather than at its first message, a model that cannot answer (no endpoint configured) is
 * logged with its fix, and the prices of the agents' models are cached for usage and footers. Returns one
 * report per distinct project/agent, for the start-up summary.
 */
import { DEFAULT_OPENAI_BASE_URL, modelSetupProblem } from '../../core/state';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import type { AgentPool } from './agent-pool';
import type { PricingBook } from './pricing-book';

/** How one routed agent stands: its model and endpoint (and why it cannot answer), or why it did not load. */
export type AgentReport = { project: string; agent: string } & (
  | {
      /** `provider/model_id` and the endpoint it is called at. */
      model: { label: string; baseUrl: string };
      /** The model cannot answer (e.g. no model endpoint is configured), with its fix. */
      setup?: { problem: string; fix: string };
    }
  /** The agent or its model could not be loaded (the first error). */
  | { loadError: string }
);

export async function warmAgents(config: GatewayConfig, pool: AgentPool, prices: PricingBook, logger: Logger): Promise<AgentReport[]> {
  const reports = new Map<string, AgentReport>();
  for (const r of [config.default_route, ...config.routes]) {
    const key = `${r.project}/${r.agent}`;
    const loaded = await pool.get(r.project, r.agent, r.tools.network);
    if (!loaded.ok) {
      logger.error({ route: r.name, errors: loaded.errors.map((e) => e.message) }, 'agent could not be loaded');
      if (!reports.has(key)) reports.set(key, { project: r.project, agent: r.agent, loadError: loaded.errors[0]?.message ?? 'unknown error' });
      continue;
    }
    const m = loaded.state.resolveModel();
    if (!m.ok) {
      if (!reports.has(key)) reports.set(key, { project: r.project, agent: r.agent, loadError: m.error.message });
      continue;
    }
    if (!reports.has(key)) {
      const problem = modelSetupProblem(m.value, loaded.state.paths.projectConfig);
      if (problem) logger.warn({ project: r.project, agent: r.agent, fix: problem.fix }, `${problem.problem}: the agent cannot answer`);
      reports.set(key, {
        project: r.project,
        agent: r.agent,
        model: { label: `${m.value.entry.provider}/${m.value.entry.model_id}`, baseUrl: m.value.connection.baseUrl ?? DEFAULT_OPENAI_BASE_URL },
        ...(problem ? { setup: problem } : {}),
      });
    }
    await prices.warm(r.project, m.value.entry.provider, m.value.entry.model_id);
  }
  return [...reports.values()];
}
