/**
 * `loadGatewayConfig({argv, env, cwd})`: finds the config file (`--config`, else `PENGUIN_GATEWAY_CONFIG`,
 * else `config/gateway.yaml` when present, else none), validates it and the environment, and returns the
 * resolved config or every error found. It reads files and nothing else: no directory is created here.
 * Precedence: environment > file > default, except DM and group policies, where a per-platform file value
 * wins over `PENGUIN_DM_POLICY` / `PENGUIN_GROUP_POLICY` (gateway.md §8).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { describeValue, formatPath, issuesToErrors, makeError, valueAt, type ConfigError, type PathSegment } from './errors';
import { ENV_SOURCE, readEnv, type EnvValues } from './env';
import { resolveRoutes } from './routes';
import { DEFAULTS, fileSchema, knownKeysAt, type DmPolicy, type FileConfig, type GroupPolicy } from './schema';
import type { GatewayConfig } from './types';
import { parseYamlSource, type YamlSource } from './yaml-source';

export const DEFAULT_CONFIG_PATH = join('config', 'gateway.yaml');
export const CLI_SOURCE = 'command line';

export interface LoadOptions {
  /** Command-line arguments after the node binary and script (only `--config` is read here). */
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export type LoadResult = { ok: true; config: GatewayConfig } | { ok: false; errors: ConfigError[] };

export function loadGatewayConfig(opts: LoadOptions = {}): LoadResult {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const homeDir = env.HOME?.trim() || homedir();
  const expand = (p: string) => expandPath(p, cwd, homeDir);

  const envRead = readEnv(env);
  const errors: ConfigError[] = [...envRead.errors];
  const ev = envRead.values;

  const { path: located, missing } = locateConfigFile(opts.argv ?? [], ev, cwd, errors);
  let file: FileConfig | undefined;
  let source: YamlSource = { data: {}, locate: () => undefined };
  const shown = located ? displayPath(located, cwd) : '';
  if (located) {
    let text: string | undefined;
    try {
      text = readFileSync(located, 'utf8');
    } catch (e) {
      errors.push(makeError({ source: shown, path: '(file)', expected: 'a readable file', found: (e as Error).message }));
    }
    if (text !== undefined) {
      const parsed = parseYamlSource(text, shown);
      if (!parsed.ok) errors.push(...parsed.errors);
      else if (parsed.value.data === null || typeof parsed.value.data !== 'object' || Array.isArray(parsed.value.data)) {
        errors.push(makeError({ source: shown, path: '(root)', expected: 'a mapping of settings', found: describeValue(parsed.value.data), ...parsed.value.locate([]) }));
      } else {
        source = parsed.value;
        const r = fileSchema.safeParse(source.data);
        if (r.success) file = r.data;
        else errors.push(...issuesToErrors(r.error.issues, { source: shown, data: source.data, locate: source.locate, knownKeys: knownKeysAt }));
      }
    }
  } else if (!missing) {
    file = fileSchema.parse({});
  }
  if (!file) return { ok: false, errors };

  const report = (path: PathSegment[], expected: string, found?: string) =>
    errors.push(makeError({ source: shown || 'defaults', path: formatPath(path), expected, found: found ?? describeValue(valueAt(source.data, path)), ...source.locate(path) }));
  const { routes, default_route } = resolveRoutes(file, expand, report);

  const dm = (own: DmPolicy | undefined): DmPolicy => own ?? ev.dmPolicy ?? DEFAULTS.dmPolicy;
  const group = (own: GroupPolicy | undefined, platform: keyof typeof DEFAULTS.groupPolicy): GroupPolicy => own ?? ev.groupPolicy ?? DEFAULTS.groupPolicy[platform];
  const tg = file.telegram;
  if (tg.enabled && tg.mode === 'webhook') {
    if (tg.webhook_url === undefined) report(['telegram', 'webhook_url'], 'the public https URL Telegram posts updates to, when telegram.mode is webhook');
    if (tg.webhook_secret === undefined) report(['telegram', 'webhook_secret'], 'a secret token (1-256 characters A-Z a-z 0-9 _ -) when telegram.mode is webhook');
  }
  const sl = file.slack;
  const slackMode = sl.mode ?? (ev.slackAppToken ? 'socket' : ev.slackSigningSecret ? 'http' : undefined);
  if (sl.enabled && ev.slackBotToken) {
    if (slackMode === undefined) {
      errors.push(makeError({ source: ENV_SOURCE, path: 'SLACK_BOT_TOKEN', expected: 'SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) alongside it', found: 'neither' }));
    } else if (slackMode === 'socket' && !ev.slackAppToken) {
      errors.push(makeError({ source: ENV_SOURCE, path: 'SLACK_APP_TOKEN', expected: `an app-level token (xapp-...) because ${shown}: slack.mode is socket`, found: 'nothing' }));
    } else if (slackMode === 'http' && !ev.slackSigningSecret) {
      errors.push(makeError({ source: ENV_SOURCE, path: 'SLACK_SIGNING_SECRET', expected: `the app's signing secret because ${shown}: slack.mode is http`, found: 'nothing' }));
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const home = expand(ev.home ?? file.home ?? DEFAULTS.home);
  const dc = file.discord;
  const config: GatewayConfig = {
    ...(located ? { config_file: located } : {}),
    home,
    db_path: join(home, 'gateway.db'),
    listen: { host: ev.host ?? file.listen.host ?? DEFAULTS.host, port: ev.port ?? file.listen.port ?? DEFAULTS.port },
    logging: file.logging,
    approvals: file.approvals,
    sessions: file.sessions,
    shutdown: file.shutdown,
    tools: file.tools,
    ...(ev.adminToken ? { admin_token: ev.adminToken } : {}),
    model: compact({ api_key: ev.openaiApiKey, base_url: ev.openaiBaseUrl, model_id: ev.model }),
    allow_users: ev.allowUsers,
    telegram: {
      enabled: tg.enabled,
      configured: tg.enabled && ev.telegramBotToken !== undefined,
      dm_policy: dm(tg.dm_policy),
      group_policy: group(tg.group_policy, 'telegram'),
      streaming: tg.streaming,
      api_root: ev.telegramApiRoot ?? tg.api_root ?? DEFAULTS.telegramApiRoot,
      mode: tg.mode,
      draft_streaming: tg.draft_streaming,
      ...compact({ bot_token: ev.telegramBotToken, webhook_url: tg.webhook_url, webhook_secret: tg.webhook_secret }),
    },
    slack: {
      enabled: sl.enabled,
      configured: sl.enabled && ev.slackBotToken !== undefined,
      dm_policy: dm(sl.dm_policy),
      group_policy: group(sl.group_policy, 'slack'),
      streaming: sl.streaming,
      api_url: ev.slackApiUrl ?? sl.api_url ?? DEFAULTS.slackApiUrl,
      ...compact({ bot_token: ev.slackBotToken, signing_secret: ev.slackSigningSecret, app_token: ev.slackAppToken, mode: slackMode }),
    },
    discord: {
      enabled: dc.enabled,
      configured: dc.enabled && ev.discordBotToken !== undefined,
      dm_policy: dm(dc.dm_policy),
      group_policy: group(dc.group_policy, 'discord'),
      streaming: dc.streaming,
      api_url: ev.discordApiUrl ?? dc.api_url ?? DEFAULTS.discordApiUrl,
      ...compact({ bot_token: ev.discordBotToken }),
    },
    web: { enabled: file.web.enabled, configured: file.web.enabled, streaming: file.web.streaming },
    routes,
    default_route,
  };
  return { ok: true, config };
}

/** The config file to read; `missing` when one was named (argv or env) but cannot be used. */
function locateConfigFile(argv: readonly string[], ev: EnvValues, cwd: string, errors: ConfigError[]): { path?: string; missing: boolean } {
  let fromArgv: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--config') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--') || next.trim() === '') {
        errors.push(makeError({ source: CLI_SOURCE, path: '--config', expected: 'a config file path after --config', found: 'nothing' }));
        return { missing: true };
      }
      fromArgv = next;
      i++;
    } else if (a.startsWith('--config=')) {
      fromArgv = a.slice('--config='.length);
      if (fromArgv.trim() === '') {
        errors.push(makeError({ source: CLI_SOURCE, path: '--config', expected: 'a config file path', found: 'nothing' }));
        return { missing: true };
      }
    }
  }
  const chosen = fromArgv !== undefined ? { p: fromArgv, source: CLI_SOURCE, path: '--config' } : ev.configFile !== undefined ? { p: ev.configFile, source: ENV_SOURCE, path: 'PENGUIN_GATEWAY_CONFIG' } : undefined;
  if (chosen) {
    const abs = resolve(cwd, chosen.p);
    if (!isFile(abs)) {
      errors.push(makeError({ source: chosen.source, path: chosen.path, expected: 'an existing config file', found: `${describeValue(chosen.p)} (${existsSync(abs) ? 'not a file' : 'no such file'})` }));
      return { missing: true };
    }
    return { path: abs, missing: false };
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_PATH);
  return { path: isFile(fallback) ? fallback : undefined, missing: false };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `~` and `~/x` use the user's home; relative paths are taken from the working directory. */
export function expandPath(p: string, cwd: string, homeDir: string): string {
  if (p === '~') return homeDir;
  if (p.startsWith('~/')) return join(homeDir, p.slice(2));
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
}

function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

function compact<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
