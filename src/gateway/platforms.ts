/**
 * Which platform adapters this gateway runs (gateway.md §8): the web playground whenever it is enabled,
 * and each chat platform whose section is configured (enabled, credentials present). Adding a platform is
 * its folder under src/adapters plus one line in PLATFORM_BINDINGS. Telegram starts at once; the others
 * load (SDK and all) once it polls. An adapter without credentials is not started; /readyz, the log and
 * doctor say why.
 */
import type { RequestHandler } from 'express';
import type { AdapterBinding, BindingDeps } from '../adapters/contract/binding';
import type { LeadershipFor } from '../adapters/contract/leadership';
import type * as DiscordAdapter from '../adapters/discord';
import type * as SlackAdapter from '../adapters/slack';
import type * as TelegramAdapter from '../adapters/telegram';
import { createWebBinding } from '../adapters/web';
import type { ChatPlatform, GatewayConfig } from './config';
import type { GatewayStore } from './store';
import type { Logger } from './logger';
import type { PlatformEntry } from './runtime/late-platforms';

/**
 * The chat platforms this build can run, each from its config section. Each adapter (and its SDK) is
 * loaded only when its platform is configured: Slack and Discord together add ~20 MB to an idle process
 * (README, "Performance"), grammY less but not nothing.
 */
export const PLATFORM_BINDINGS: Partial<Record<ChatPlatform, (config: GatewayConfig, deps: BindingDeps) => AdapterBinding>> = {
  telegram: (c, d) => (require('../adapters/telegram') as typeof TelegramAdapter).createTelegramBinding(c.telegram, d),
  slack: (c, d) => (require('../adapters/slack') as typeof SlackAdapter).createSlackBinding(c.slack, d),
  discord: (c, d) => (require('../adapters/discord') as typeof DiscordAdapter).createDiscordBinding(c.discord, d),
};

/**
 * Built before the other platforms load: grammY is light, and the first getUpdates is what a start is
 * measured by; Bolt and Discord's transport (~0.22 s and ~0.07 s from their vendor bundles) load after it
 * polls.
 */
const STARTS_FIRST: ReadonlySet<ChatPlatform> = new Set(['telegram']);

/** `ctx.auth` is the admin guard (bearer token or dashboard login with CSRF) the playground routes sit behind. */
export function buildPlatforms(
  config: GatewayConfig,
  ctx: { store: GatewayStore; logger: Logger; auth: RequestHandler; leadership?: LeadershipFor; liveInstances?: () => number },
): PlatformEntry[] {
  const deps: BindingDeps = { logger: ctx.logger, ...(ctx.leadership ? { leadership: ctx.leadership } : {}), ...(ctx.liveInstances ? { liveInstances: ctx.liveInstances } : {}) };
  const out: PlatformEntry[] = [];
  if (config.web.enabled) out.push(createWebBinding(config.web, { ...deps, auth: ctx.auth }));
  for (const [name, create] of Object.entries(PLATFORM_BINDINGS) as [ChatPlatform, (c: GatewayConfig, d: BindingDeps) => AdapterBinding][]) {
    if (!config[name].configured) continue;
    out.push(STARTS_FIRST.has(name) ? create(config, deps) : { platform: name, load: () => create(config, deps) });
  }
  return out;
}
