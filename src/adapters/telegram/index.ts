/**
 * The Telegram adapter (grammY): `createTelegramBinding(section)` builds the adapter from the gateway's
 * `telegram` config section and, in webhook mode, the `POST /telegram/webhook` route for the listener; the pure pieces (update mapping, error
 * classification, keyboards, thread refs, rate scopes) are exported for tests and other callers.
 */
import type { AdapterBinding, BindingDeps } from '../contract/binding';
import { TelegramAdapter } from './adapter';
import { telegramConfigOf, type TelegramSection } from './config';

export function createTelegramBinding(section: TelegramSection, deps: BindingDeps = {}): AdapterBinding {
  const adapter = new TelegramAdapter(telegramConfigOf(section), deps);
  const routes = adapter.webhookRoutes();
  return routes ? { adapter, routes } : { adapter };
}

export { TelegramAdapter, TELEGRAM_COMMANDS, ALLOWED_UPDATES, type TelegramAdapterDeps } from './adapter';
export { parseTelegramConfig, telegramAdapterConfigSchema, telegramConfigOf, type TelegramAdapterConfig, type TelegramSection } from './config';
export { classifyTelegramError } from './errors';
export { updateToInbound, type InboundEvent, type InboundIo, type UpdateLike } from './inbound';
export { inlineKeyboard } from './keyboard';
export { telegramThread, telegramTarget, threadOfTarget, telegramPlace, type TelegramTarget } from './thread';
export { telegramRateScopes, TELEGRAM_RATES } from './rate';
export { measureTelegram, telegramText } from './format';
export { telegramWebhookRoutes, secretMatches, TELEGRAM_WEBHOOK_PATH } from './webhook';
export { GETFILE_MAX_BYTES } from './attachments';
