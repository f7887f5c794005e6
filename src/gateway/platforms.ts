/**
 * Which platform adapters this gateway runs (gateway.md §8): the web playground whenever it is enabled,
 * and each chat platform whose section is configured (enabled, credentials present). Adding a platform is
 * its folder under src/adapters plus one line in PLATFORM_BINDINGS. An adapter without credentials is not
 * started; /readyz, the log and doctor say why.
 */
import type { AdapterBinding, BindingDeps } from '../adapters/contract/binding';
import type * as DiscordAdapter from '../adapters/discord';
import { createTelegramBinding } from '../adapters/telegram';
import { createWebBinding } from '../adapters/web';
import { requireAdminToken } from './admin/auth';
import type { ChatPlatform, GatewayConfig } from './config';
import type { GatewayStore } from './store';
import type { Logger } from './logger';

/** The chat platforms this build can run, each from its config section. */
export const PLATFORM_BINDINGS: Partial<Record<ChatPlatform, (config: GatewayConfig, deps: BindingDeps) => AdapterBinding>> = {
  telegram: (c, d) => createTelegramBinding(c.telegram, d),
  // loaded only when configured: discord.js alone adds ~40 MB to the idle process
  discord: (c, d) => (require('../adapters/discord') as typeof DiscordAdapter).createDiscordBinding(c.discord, d),
};

export function buildPlatforms(config: GatewayConfig, ctx: { store: GatewayStore; logger: Logger }): AdapterBinding[] {
  const deps: BindingDeps = { logger: ctx.logger };
  const out: AdapterBinding[] = [];
  if (config.web.enabled) out.push(createWebBinding(config.web, { ...deps, auth: requireAdminToken(ctx.store, config.admin_token) }));
  for (const [name, create] of Object.entries(PLATFORM_BINDINGS) as [ChatPlatform, (c: GatewayConfig, d: BindingDeps) => AdapterBinding][]) {
    if (config[name].configured) out.push(create(config, deps));
  }
  return out;
}
