/**
 * Model prices for the usage API and the optional reply footer: looked up in the project file on demand
 * (`lookup`, used by /api/usage at query time) and kept per (provider, model) for the routed agents'
 * models, which `warm` fills once at start. A model without pricing has no cost (shown as uncosted).
 */
import { agentPaths, loadProjectConfig, resolveModel } from '../../core/state';
import type { PricingRates } from '../store';

export class PricingBook {
  private readonly cache = new Map<string, PricingRates | undefined>();

  constructor(private readonly home: string, private readonly env: Record<string, string | undefined>) {}

  /** Rates of `(provider, modelId)` in `projectId`'s file, read now; undefined when unpriced or unreadable. */
  readonly lookup = async (projectId: string, provider: string, modelId: string): Promise<PricingRates | undefined> => {
    try {
      const p = agentPaths(this.home, projectId, 'default_agent');
      const loaded = await loadProjectConfig(p.projectConfig);
      if (!loaded?.ok) return undefined;
      const r = resolveModel(loaded.value, p.projectConfig, { provider, model_id: modelId }, this.env);
      const pr = r.ok ? r.value.entry.pricing : undefined;
      return pr ? { cache_read: pr.cache_read ?? 0, cache_write: pr.cache_write ?? 0, output: pr.output ?? 0 } : undefined;
    } catch {
      return undefined;
    }
  };

  async warm(projectId: string, provider: string, modelId: string): Promise<void> {
    this.cache.set(`${provider}\u0000${modelId}`, await this.lookup(projectId, provider, modelId));
  }

  /** What `warm` found (undefined for models it has not seen). */
  readonly rates = (provider: string, modelId: string): PricingRates | undefined => this.cache.get(`${provider}\u0000${modelId}`);
}
