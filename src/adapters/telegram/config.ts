/**
 * TelegramAdapterConfig: what the gateway hands the Telegram adapter (from `config.telegram` and the
 * environment), validated with zod at the boundary so a bad value fails with the field's name. Webhook mode
 * needs the public URL and the secret token Telegram echoes in `X-Telegram-Bot-Api-Secret-Token`.
 */
import { z } from 'zod';

export interface TelegramAdapterConfig {
  botToken: string;
  apiRoot: string;
  mode: 'polling' | 'webhook';
  webhookUrl?: string;
  webhookSecret?: string;
  draftStreaming: boolean;
  dmEditIntervalMs?: number;
  groupEditIntervalMs?: number;
}

const interval = (what: string) => z.number({ error: `${what} must be a number of milliseconds` }).int().min(0, `${what} must not be negative`).optional();

export const telegramAdapterConfigSchema = z
  .object({
    botToken: z.string({ error: 'botToken must be a string' }).regex(/^\d+:[A-Za-z0-9_-]+$/, 'botToken must look like "<bot id>:<secret>" (as BotFather prints it)'),
    apiRoot: z.url({ error: 'apiRoot must be an http(s) URL' }).refine((u) => /^https?:\/\//i.test(u), 'apiRoot must be an http(s) URL'),
    mode: z.enum(['polling', 'webhook'], { error: 'mode must be "polling" or "webhook"' }),
    webhookUrl: z.url({ error: 'webhookUrl must be a URL' }).optional(),
    webhookSecret: z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, 'webhookSecret must be 1-256 characters of A-Z a-z 0-9 _ -').optional(),
    draftStreaming: z.boolean({ error: 'draftStreaming must be true or false' }),
    dmEditIntervalMs: interval('dmEditIntervalMs'),
    groupEditIntervalMs: interval('groupEditIntervalMs'),
  })
  .superRefine((c, ctx) => {
    if (c.mode !== 'webhook') return;
    if (c.webhookUrl === undefined) ctx.addIssue({ code: 'custom', path: ['webhookUrl'], message: 'webhookUrl is required in webhook mode' });
    if (c.webhookSecret === undefined) ctx.addIssue({ code: 'custom', path: ['webhookSecret'], message: 'webhookSecret is required in webhook mode' });
  });

/** Validated config; throws an Error naming every bad field. */
export function parseTelegramConfig(input: TelegramAdapterConfig): TelegramAdapterConfig {
  const r = telegramAdapterConfigSchema.safeParse(input);
  if (!r.success) {
    throw new Error(`invalid Telegram adapter config: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return r.data;
}

/** The bot's numeric id: the part of the token before ':'. */
export function botIdOf(token: string): string {
  return token.slice(0, token.indexOf(':'));
}

/** Strips a trailing slash so `${apiRoot}/bot…` and `${apiRoot}/file/bot…` are well-formed. */
export function normalizeApiRoot(apiRoot: string): string {
  return apiRoot.replace(/\/+$/, '');
}
