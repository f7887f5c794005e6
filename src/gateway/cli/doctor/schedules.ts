/**
 * Doctor's schedule check: every routed agent's schedule files read as the gateway reads them. Each invalid
 * file is a warning naming the file, key, what was expected and what was found (the gateway skips it and
 * runs the rest); a deliver_to on a platform this config does not run is a warning too. Reads only.
 */
import { formatDeliveryTarget } from '../../../adapters/contract/delivery-target';
import { CHAT_PLATFORMS, type GatewayConfig } from '../../config';
import { loadCatalog } from '../../scheduler';
import type { CheckResult } from './types';

const FIX_INVALID = 'fix the file (the gateway re-reads it on change), or remove it';

function platformOff(config: GatewayConfig, platform: string): string | undefined {
  if (platform === 'web') return config.web.enabled ? undefined : 'the web playground is disabled (web.enabled: false)';
  if (!(CHAT_PLATFORMS as readonly string[]).includes(platform)) return undefined;
  const section = config[platform as (typeof CHAT_PLATFORMS)[number]];
  return section.configured ? undefined : `${platform} is ${section.enabled ? 'not configured (no credentials)' : 'disabled'}`;
}

export async function checkSchedules(config: GatewayConfig): Promise<CheckResult[]> {
  const entries = await loadCatalog(config);
  if (entries.length === 0) return [{ name: 'schedules', status: 'ok', detail: 'none: the routed agents have no files in agent_state/schedule/' }];
  const out: CheckResult[] = [];
  for (const e of entries) {
    if (!e.def) {
      out.push({ name: `schedule ${e.ref.schedule_name}`, status: 'warn', detail: `invalid, skipped: ${e.error?.message.split('\n').join('; ')}`, fix: FIX_INVALID });
      continue;
    }
    const off = e.target && platformOff(config, e.target.platform);
    if (off) out.push({ name: `schedule ${e.ref.schedule_name}`, status: 'warn', detail: `deliver_to ${formatDeliveryTarget(e.target!)}: ${off}, so its runs fail`, fix: `configure ${e.target!.platform}, or point deliver_to elsewhere` });
  }
  const valid = entries.filter((e) => e.def);
  const enabled = valid.filter((e) => e.def!.enabled).length;
  out.unshift({ name: 'schedules', status: 'ok', detail: `${entries.length} file${entries.length === 1 ? '' : 's'}: ${valid.length} valid (${enabled} enabled), ${entries.length - valid.length} invalid` });
  return out;
}
