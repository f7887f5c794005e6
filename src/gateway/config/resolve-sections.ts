/**
 * Builds the resolved `GatewayConfig` from a validated file and the environment (gateway.md §8).
 * Precedence: environment > file > default, except DM and group policies, where a per-platform file
 * value wins over `PENGUIN_DM_POLICY` / `PENGUIN_GROUP_POLICY`. Credentials sit in the section they
 * configure; a platform is `configured` when it is enabled and its bot token exists.
 */
import { join } from 'node:path';
import type { EnvValues } from './env';
import { DEFAULTS, type DmPolicy, type FileConfig, type GroupPolicy } from './schema';
import type { DiscordConfig, GatewayConfig, ResolvedRoute, SlackConfig, TelegramConfig, WebConfig } from './types';

/** What the loader resolved before the sections: the data root, the file read, the Slack mode, the routes. */
export interface ResolvedBasics {
  /** Absolute data root. */
  home: string;
  configFile: string | undefined;
  slackMode: SlackConfig['mode'];
  routes: ResolvedRoute[];
  default_route: ResolvedRoute;
}

/** The file's mode, else Socket Mode when an app token exists, else HTTP when a signing secret exists. */
export function resolveSlackMode(sl: FileConfig['slack'], ev: EnvValues): SlackConfig['mode'] {
  return sl.mode ?? (ev.slackAppToken ? 'socket' : ev.slackSigningSecret ? 'http' : undefined);
}

export function resolveSections(file: FileConfig, ev: EnvValues, r: ResolvedBasics): GatewayConfig {
  return {
    ...(r.configFile ? { config_file: r.configFile } : {}),
    home: r.home,
    db_path: join(r.home, 'gateway.db'),
    ...(ev.databaseUrl ? { database_url: ev.databaseUrl } : {}),
    listen: { host: ev.host ?? file.listen.host ?? DEFAULTS.host, port: ev.port ?? file.listen.port ?? DEFAULTS.port },
    logging: file.logging,
    approvals: file.approvals,
    sessions: file.sessions,
    shutdown: file.shutdown,
    tools: file.tools,
    reply: file.reply,
    retention: file.retention,
    cluster: { ...file.cluster, ...(ev.instanceId ? { instance_id: ev.instanceId } : {}) },
    ...(ev.adminToken ? { admin_token: ev.adminToken } : {}),
    model: compact({ api_key: ev.openaiApiKey, base_url: ev.openaiBaseUrl, model_id: ev.model }),
    allow_users: ev.allowUsers,
    telegram: telegramSection(file.telegram, ev),
    slack: slackSection(file.slack, ev, r.slackMode),
    discord: discordSection(file.discord, ev),
    web: webSection(file.web),
    routes: r.routes,
    default_route: r.default_route,
  };
}

const dmPolicy = (own: DmPolicy | undefined, ev: EnvValues): DmPolicy => own ?? ev.dmPolicy ?? DEFAULTS.dmPolicy;

const groupPolicy = (own: GroupPolicy | undefined, platform: keyof typeof DEFAULTS.groupPolicy, ev: EnvValues): GroupPolicy =>
  own ?? ev.groupPolicy ?? DEFAULTS.groupPolicy[platform];

function telegramSection(tg: FileConfig['telegram'], ev: EnvValues): TelegramConfig {
  return {
    enabled: tg.enabled,
    configured: tg.enabled && ev.telegramBotToken !== undefined,
    dm_policy: dmPolicy(tg.dm_policy, ev),
    group_policy: groupPolicy(tg.group_policy, 'telegram', ev),
    streaming: tg.streaming,
    api_root: ev.telegramApiRoot ?? tg.api_root ?? DEFAULTS.telegramApiRoot,
    mode: tg.mode,
    draft_streaming: tg.draft_streaming,
    ...compact({ bot_token: ev.telegramBotToken, webhook_url: tg.webhook_url, webhook_secret: tg.webhook_secret }),
  };
}

function slackSection(sl: FileConfig['slack'], ev: EnvValues, mode: SlackConfig['mode']): SlackConfig {
  return {
    enabled: sl.enabled,
    configured: sl.enabled && ev.slackBotToken !== undefined,
    dm_policy: dmPolicy(sl.dm_policy, ev),
    group_policy: groupPolicy(sl.group_policy, 'slack', ev),
    streaming: sl.streaming,
    api_url: ev.slackApiUrl ?? sl.api_url ?? DEFAULTS.slackApiUrl,
    thread_follow_up: sl.thread_follow_up,
    native_streaming: sl.native_streaming,
    socket_silence_ms: sl.socket_silence_ms,
    ...compact({ bot_token: ev.slackBotToken, signing_secret: ev.slackSigningSecret, app_token: ev.slackAppToken, mode }),
  };
}

function discordSection(dc: FileConfig['discord'], ev: EnvValues): DiscordConfig {
  return {
    enabled: dc.enabled,
    configured: dc.enabled && ev.discordBotToken !== undefined,
    dm_policy: dmPolicy(dc.dm_policy, ev),
    group_policy: groupPolicy(dc.group_policy, 'discord', ev),
    streaming: dc.streaming,
    api_url: ev.discordApiUrl ?? dc.api_url ?? DEFAULTS.discordApiUrl,
    guild_ids: dc.guild_ids,
    message_content: dc.message_content,
    shard_count: dc.shard_count,
    ...compact({ bot_token: ev.discordBotToken }),
  };
}

/** The playground sits behind the admin login, so its policies are always open. */
function webSection(web: FileConfig['web']): WebConfig {
  return { enabled: web.enabled, configured: web.enabled, dm_policy: 'open', group_policy: 'open', streaming: web.streaming };
}

/** Drops the keys whose value is undefined (optional config keys are absent, never undefined). */
function compact<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
