/**
 * The Telegram adapter (grammY): `createTelegramBinding` builds the adapter and, in webhook mode, the
 * `POST /telegram/webhook` route for the gateway's listener; the pure pieces (update mapping, error
 * classification, keyboards, thread refs, rate scopes) are exported for tests and other callers.
 */
import type { Express } from 'express';
import type { ChannelAdapter } from '../contract/adapter';
import { TelegramAdapter, type TelegramAdapterDeps } from './adapter';
import type { TelegramAdapterConfig } from './config';

export interface TelegramBinding {
  adapter: ChannelAdapter;
  routes?: (app: Express) => void;
}

export function createTelegramBinding(config: TelegramAdapterConfig, deps: TelegramAdapterDeps = {}): TelegramBinding {
  const adapter = new TelegramAdapter(config, deps);
  const routes = adapter.webhookRoutes();
  return routes ? { adapter, routes } : { adapter };
}

export { TelegramAdapter, TELEGRAM_COMMANDS, ALLOWED_UPDATES, TYPING_RENEW_MS, type TelegramAdapterDeps } from './adapter';
export { parseTelegramConfig, telegramAdapterConfigSchema, type TelegramAdapterConfig } from './config';
export { classifyTelegramError } from './errors';
export { updateToInbound, type InboundEvent, type InboundIo, type UpdateLike } from './inbound';
export { inlineKeyboard } from './keyboard';
export { telegramThread, telegramTarget, threadOfTarget, type TelegramTarget } from './thread';
export { telegramRateScopes, TELEGRAM_RATES } from './rate';
export { measureTelegram, telegramText } from './format';
export { telegramWebhookRoutes, secretMatches, TELEGRAM_WEBHOOK_PATH } from './webhook';
export { GETFILE_MAX_BYTES } from './attachments';
