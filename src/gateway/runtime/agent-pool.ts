/**
 * AgentPool: one loaded Agent per (project, agent, network policy), built from its files on first use and
 * shared by every conversation routed to it, with the gateway's tool isolation (allowlisted env, the data
 * root out of reach, the command sandbox). A load failure (bad system_config.yaml, no usable model) is
 * cached as an error with the state layer's precise messages until `invalidate()`, so a broken agent
 * answers quickly.
 */
import { loadAgent, type LoadAgentOptions, type LoadAgentResult, type ToolIsolation } from '../../core/compose';
import type { Clock } from '../../core/engine/clock';

/** The isolation of every agent, minus what a route decides (network). */
export interface PoolIsolation {
  envPolicy: ToolIsolation['envPolicy'];
  dataRoot: string;
  sandbox: { kind: 'bubblewrap'; binary: string; readonly: string[] } | { kind: 'refuse'; reason: string } | { kind: 'none' };
}

export interface AgentPoolOptions {
  home: string;
  env: Record<string, string | undefined>;
  isolation?: PoolIsolation;
  clock?: Clock;
  onTraceError?: (err: Error, sessionId: string) => void;
  /** The trace observer of one agent's sessions (the gateway's TraceLedger). */
  traceObserver?: (projectId: string, agentId: string) => LoadAgentOptions['onTraceWritten'];
  warn?: (message: string) => void;
  /** Each successful load (the gateway learns the agent's secrets from it, for redaction). */
  onLoaded?: (loaded: Extract<LoadAgentResult, { ok: true }>) => void;
}

export class AgentPool {
  private readonly loaded = new Map<string, Promise<LoadAgentResult>>();

  constructor(private readonly opts: AgentPoolOptions) {}

  /** `network`: whether the route lets sandboxed commands use the network. */
  get(projectId: string, agentId: string, network = true): Promise<LoadAgentResult> {
    const key = `${projectId}\u0000${agentId}\u0000${network ? 'net' : 'nonet'}`;
    let p = this.loaded.get(key);
    if (!p) {
      p = loadAgent({
        home: this.opts.home, projectId, agentId, env: this.opts.env, clock: this.opts.clock, onTraceError: this.opts.onTraceError, warn: this.opts.warn,
        onTraceWritten: this.opts.traceObserver?.(projectId, agentId),
        ...(this.opts.isolation ? { isolation: this.isolationFor(this.opts.isolation, network) } : {}),
      }).then((r) => {
        if (r.ok) this.opts.onLoaded?.(r);
        return r;
      });
      this.loaded.set(key, p);
    }
    return p;
  }

  /** Forget loaded agents (after config edits); running sessions keep the Agent they have. */
  invalidate(): void {
    const gone = [...this.loaded.values()];
    this.loaded.clear();
    // The forgotten states stop watching their files (an Agent still held reads them at each prompt).
    for (const p of gone) void p.then((r) => r.ok && r.state.close(), () => undefined);
  }

  private isolationFor(iso: PoolIsolation, network: boolean): ToolIsolation {
    const sandbox = iso.sandbox.kind === 'bubblewrap' ? { ...iso.sandbox, network } : iso.sandbox.kind === 'refuse' ? iso.sandbox : undefined;
    return { envPolicy: iso.envPolicy, dataRoot: iso.dataRoot, ...(sandbox ? { sandbox } : {}) };
  }
}
