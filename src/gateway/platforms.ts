/**
 * Which platform adapters this gateway runs (gateway.md §8): the web playground whenever it is enabled,
 * and each chat platform whose credentials are configured and not disabled. An adapter without
 * credentials is simply not started; /readyz and the dashboard show it as disabled.
 */
import { createTelegramBinding } from '../adapters/telegram';
import { WebAdapter, webRoutes } from '../adapters/web';
import { requireAdminToken } from './admin/auth';
import type { GatewayConfig } from './config';
import type { PlatformBinding } from './runtime/gateway';
import type { GatewayStore } from './store';
import type { Logger } from './logger';

export function buildPlatforms(config: GatewayConfig, _env: Record<string, string | undefined>, ctx: { store: GatewayStore; logger: Logger }): PlatformBinding[] {
  const out: PlatformBinding[] = [];
  if (config.web.enabled) {
    const web = new WebAdapter();
    out.push({ adapter: web, routes: webRoutes(web, { auth: requireAdminToken(ctx.store, config.admin_token) }) });
  }
  const tg = config.telegram;
  if (tg.configured && tg.enabled && tg.bot_token) {
    out.push(
      createTelegramBinding(
        {
          botToken: tg.bot_token,
          apiRoot: tg.api_root,
          mode: tg.mode,
          webhookUrl: tg.webhook_url,
          webhookSecret: tg.webhook_secret,
          draftStreaming: tg.draft_streaming,
          dmEditIntervalMs: tg.streaming.dm_edit_interval_ms,
          groupEditIntervalMs: tg.streaming.group_edit_interval_ms,
        },
        { logger: ctx.logger },
      ),
    );
  }
  return out;
}
