/**
 * TelegramAdapterConfig: what the gateway hands the Telegram adapter (from `config.telegram` and the
 * environment), validated with zod at the boundary so a bad value fails with the field's name. Webhook mode
 * needs the public URL and the secret token Telegram echoes in `X-Telegram-Bot-Api-Secret-Token`.
 */
import * as z from 'zod';
import type { StreamingSettings } from '../contract/binding';
import { httpUrlSchema, streamingSettingsSchema, parseAdapterConfig } from '../contract/config-schema';

export interface TelegramAdapterConfig {
  botToken: string;
  apiRoot: string;
  mode: 'polling' | 'webhook';
  webhookUrl?: string;
  webhookSecret?: string;
  draftStreaming: boolean;
  /** Edit and typing pacing from the gateway config; absent = the platform's defaults (TELEGRAM_LIMITS). */
  streaming?: StreamingSettings;
}

export const telegramAdapterConfigSchema = z
  .object({
    botToken: z.string({ error: 'botToken must be a string' }).regex(/^\d+:[A-Za-z0-9_-]+$/, 'botToken must look like "<bot id>:<secret>" (as BotFather prints it)'),
    apiRoot: httpUrlSchema('apiRoot'),
    mode: z.enum(['polling', 'webhook'], { error: 'mode must be "polling" or "webhook"' }),
    webhookUrl: z.url({ error: 'webhookUrl must be a URL' }).optional(),
    webhookSecret: z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, 'webhookSecret must be 1-256 characters of A-Z a-z 0-9 _ -').optional(),
    draftStreaming: z.boolean({ error: 'draftStreaming must be true or false' }),
    streaming: streamingSettingsSchema,
  })
  .superRefine((c, ctx) => {
    if (c.mode !== 'webhook') return;
    if (c.webhookUrl === undefined) ctx.addIssue({ code: 'custom', path: ['webhookUrl'], message: 'webhookUrl is required in webhook mode' });
    if (c.webhookSecret === undefined) ctx.addIssue({ code: 'custom', path: ['webhookSecret'], message: 'webhookSecret is required in webhook mode' });
  });

/** Validated config; throws an Error naming every bad field. */
export function parseTelegramConfig(input: TelegramAdapterConfig): TelegramAdapterConfig {
  return parseAdapterConfig(telegramAdapterConfigSchema, 'Telegram', input);
}

/** The gateway's `telegram` config section, as data (the adapter does not import the gateway). */
export interface TelegramSection {
  bot_token?: string;
  api_root: string;
  mode: 'polling' | 'webhook';
  webhook_url?: string;
  webhook_secret?: string;
  draft_streaming: boolean;
  streaming: StreamingSettings;
}

export function telegramConfigOf(s: TelegramSection): TelegramAdapterConfig {
  return {
    botToken: s.bot_token ?? '',
    apiRoot: s.api_root,
    mode: s.mode,
    ...(s.webhook_url ? { webhookUrl: s.webhook_url } : {}),
    ...(s.webhook_secret ? { webhookSecret: s.webhook_secret } : {}),
    draftStreaming: s.draft_streaming,
    streaming: s.streaming,
  };
}

/** The bot's numeric id: the part of the token before ':'. */
export function botIdOf(token: string): string {
  return token.slice(0, token.indexOf(':'));
}

/** Strips a trailing slash so `${apiRoot}/bot…` and `${apiRoot}/file/bot…` are well-formed. */
export function normalizeApiRoot(apiRoot: string): string {
  return apiRoot.replace(/\/+$/, '');
}
