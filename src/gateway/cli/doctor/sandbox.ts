/**
 * Doctor's sandbox check: the same resolution the gateway makes at start (tools.sandbox and whether bwrap
 * can run here), so what doctor says is what `start` will do. `bubblewrap` that cannot run fails (every
 * command would be refused); `auto` without bwrap and `none` warn (commands run on the host).
 */
import { findBubblewrap, probeBubblewrap } from '../../../core/environment';
import type { GatewayConfig } from '../../config';
import { resolveToolIsolation } from '../../runtime/tool-isolation';
import type { CheckResult } from './types';

const INSTALL = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; in a container, allow user namespaces), or set tools.sandbox';

/** `pathVar`: the PATH `start` would search for bwrap (the environment doctor runs in). */
export async function checkSandbox(config: Pick<GatewayConfig, 'home' | 'tools'>, pathVar: string | undefined): Promise<CheckResult> {
  const { notice } = await resolveToolIsolation(config, () => probeBubblewrap(findBubblewrap(pathVar)));
  if (notice.level === 'info') return { name: 'sandbox', status: 'ok', detail: notice.message };
  if (notice.level === 'error') return { name: 'sandbox', status: 'fail', detail: notice.message, fix: INSTALL };
  return { name: 'sandbox', status: 'warn', detail: notice.message, ...(config.tools.sandbox === 'auto' ? { fix: INSTALL } : {}) };
}
