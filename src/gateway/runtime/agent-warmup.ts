/**
 * At start, every routed agent is loaded once (creating its files on a first start): a broken agent is
 * logged at once rather than at its first message, a model that cannot answer (no endpoint configured) is
 * logged with its fix, and the prices of the agents' models are cached for usage and footers.
 */
import { modelSetupProblem } from '../../core/state';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import type { AgentPool } from './agent-pool';
import type { PricingBook } from './pricing-book';

export async function warmAgents(config: GatewayConfig, pool: AgentPool, prices: PricingBook, logger: Logger): Promise<void> {
  const warned = new Set<string>();
  for (const r of [config.default_route, ...config.routes]) {
    const loaded = await pool.get(r.project, r.agent, r.tools.network);
    if (!loaded.ok) {
      logger.error({ route: r.name, errors: loaded.errors.map((e) => e.message) }, 'agent could not be loaded');
      continue;
    }
    const m = loaded.state.resolveModel();
    if (!m.ok) continue;
    const problem = modelSetupProblem(m.value, loaded.state.paths.projectConfig);
    if (problem && !warned.has(`${r.project}/${r.agent}`)) {
      warned.add(`${r.project}/${r.agent}`);
      logger.warn({ project: r.project, agent: r.agent, fix: problem.fix }, `${problem.problem}: the agent cannot answer`);
    }
    await prices.warm(r.project, m.value.entry.provider, m.value.entry.model_id);
  }
}
