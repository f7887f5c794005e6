/**
 * DiscordAdapterConfig: what the gateway hands the Discord adapter (from `config.discord` and the
 * environment), validated with zod at the boundary so a bad value fails with the field's name. The REST
 * root is given without a version (discord.js appends /v10); the websocket URL is discovered from it.
 */
import * as z from 'zod';
import type { StreamingSettings } from '../contract/binding';
import { httpUrlSchema, streamingSettingsSchema, parseAdapterConfig } from '../contract/config-schema';

export interface DiscordAdapterConfig {
  botToken: string;
  /** REST root without version, e.g. https://discord.com/api. */
  apiUrl: string;
  /** Register the slash commands in these guilds only (instant); empty = globally. */
  guildIds: string[];
  /** Request the privileged Message Content intent. */
  messageContent: boolean;
  /** Edit and typing pacing from the gateway config; absent = the platform's defaults (DISCORD_LIMITS). */
  streaming?: StreamingSettings;
  /** Gateway shards the bot's guilds are split over (all instances together); absent = 1. */
  shardCount?: number;
}

export const snowflakeSchema = z.string({ error: 'expected a Discord id' }).regex(/^\d{1,20}$/, 'expected a Discord id (digits)');

export const discordAdapterConfigSchema = z.object({
  botToken: z
    .string({ error: 'botToken must be a string' })
    .regex(/^[A-Za-z0-9_+/=-]+(\.[A-Za-z0-9_+/=-]+)+$/, 'botToken must look like a Discord bot token (dot-separated, from the Developer Portal)'),
  apiUrl: httpUrlSchema('apiUrl'),
  guildIds: z.array(snowflakeSchema, { error: 'guildIds must be a list of guild ids' }),
  messageContent: z.boolean({ error: 'messageContent must be true or false' }),
  streaming: streamingSettingsSchema,
  shardCount: z.number({ error: 'shardCount must be a whole number of shards' }).int('shardCount must be a whole number of shards').min(1, 'shardCount must be at least 1').optional(),
});

/** Validated config with the REST root normalised (no trailing slash); throws an Error naming every bad field. */
export function parseDiscordConfig(input: DiscordAdapterConfig): DiscordAdapterConfig {
  const data = parseAdapterConfig(discordAdapterConfigSchema, 'Discord', input);
  return { ...data, apiUrl: data.apiUrl.replace(/\/+$/, '') };
}

/** The gateway's `discord` config section, as data (the adapter does not import the gateway). */
export interface DiscordSection {
  bot_token?: string;
  api_url: string;
  guild_ids: string[];
  message_content: boolean;
  streaming: StreamingSettings;
  shard_count?: number;
}

export function discordConfigOf(s: DiscordSection): DiscordAdapterConfig {
  return { botToken: s.bot_token ?? '', apiUrl: s.api_url, guildIds: s.guild_ids, messageContent: s.message_content, streaming: s.streaming, ...(s.shard_count !== undefined ? { shardCount: s.shard_count } : {}) };
}

/** The bot's user id, which a token's first segment carries in base64; used to name rate buckets before login. */
export function botIdOfToken(token: string): string {
  const first = token.split('.')[0] ?? '';
  const decoded = Buffer.from(first, 'base64').toString('utf8');
  return /^\d{5,20}$/.test(decoded) ? decoded : 'bot';
}
