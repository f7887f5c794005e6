/**
 * The gateway's tool isolation from its config (gateway.md §6): tools get an allowlisted environment (the
 * operator's `tools.env_passthrough` on top), the data root is out of their reach, and commands run under
 * bubblewrap as `tools.sandbox` says: `auto` uses it when it can run here, `bubblewrap` requires it (commands
 * are refused when it cannot run), `none` runs them on the host. The returned notice is what start-up logs
 * and `doctor` prints.
 */
import { findBubblewrap, probeBubblewrap, type SandboxProbe } from '../../core/environment';
import type { GatewayConfig } from '../config';
import type { PoolIsolation } from './agent-pool';

export interface IsolationReport {
  isolation: PoolIsolation;
  /** One line for the operator; `level` says how loudly. */
  notice: { level: 'info' | 'warn' | 'error'; message: string };
}

export async function resolveToolIsolation(
  config: Pick<GatewayConfig, 'home' | 'tools'>,
  probe: () => Promise<SandboxProbe> = () => probeBubblewrap(findBubblewrap(process.env.PATH)),
): Promise<IsolationReport> {
  const base = { envPolicy: { mode: 'allowlist' as const, passthrough: config.tools.env_passthrough }, dataRoot: config.home };
  const mode = config.tools.sandbox;
  if (mode === 'none') {
    return {
      isolation: { ...base, sandbox: { kind: 'none' } },
      notice: { level: 'warn', message: 'tools.sandbox is none: shell commands run on the host with the gateway user\'s rights (file tools stay confined to the workspace)' },
    };
  }
  const p = await probe();
  if (p.ok) {
    return {
      isolation: { ...base, sandbox: { kind: 'bubblewrap', binary: p.binary, readonly: config.tools.readonly_paths } },
      notice: { level: 'info', message: `shell commands run in a bubblewrap sandbox (${p.binary}); network per route (default ${config.tools.network ? 'on' : 'off'})` },
    };
  }
  if (mode === 'bubblewrap') {
    return {
      isolation: { ...base, sandbox: { kind: 'refuse', reason: `tools.sandbox is bubblewrap, but ${p.reason}` } },
      notice: { level: 'error', message: `tools.sandbox is bubblewrap, but ${p.reason}: every shell command will be refused until it can run (install the bubblewrap package, or set tools.sandbox: auto)` },
    };
  }
  return {
    isolation: { ...base, sandbox: { kind: 'none' } },
    notice: { level: 'warn', message: `no command sandbox: ${p.reason}; shell commands run on the host with the gateway user's rights (install the bubblewrap package to confine them)` },
  };
}
