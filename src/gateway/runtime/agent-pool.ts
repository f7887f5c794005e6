/**
 * AgentPool: one loaded Agent per (project, agent), built from its files on first use and shared by every
 * conversation routed to it. A load failure (bad system_config.yaml, no usable model) is cached as an
 * error with the state layer's precise messages until `invalidate()`, so a broken agent answers quickly.
 */
import { loadAgent, type LoadAgentResult } from '../../core/compose';
import type { Clock } from '../../core/engine/clock';

export interface AgentPoolOptions {
  home: string;
  env: Record<string, string | undefined>;
  clock?: Clock;
  onTraceError?: (err: Error, sessionId: string) => void;
  warn?: (message: string) => void;
}

export class AgentPool {
  private readonly loaded = new Map<string, Promise<LoadAgentResult>>();

  constructor(private readonly opts: AgentPoolOptions) {}

  get(projectId: string, agentId: string): Promise<LoadAgentResult> {
    const key = `${projectId}\u0000${agentId}`;
    let p = this.loaded.get(key);
    if (!p) {
      p = loadAgent({ home: this.opts.home, projectId, agentId, env: this.opts.env, clock: this.opts.clock, onTraceError: this.opts.onTraceError, warn: this.opts.warn });
      this.loaded.set(key, p);
    }
    return p;
  }

  /** Forget loaded agents (after config edits); running sessions keep the Agent they have. */
  invalidate(): void {
    this.loaded.clear();
  }
}
