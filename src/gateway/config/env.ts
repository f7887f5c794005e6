/**
 * The public environment contract (gateway.md §8), read and validated: every variable is checked and a
 * bad one is a ConfigError naming it. Values are trimmed and an empty value counts as unset (compose files
 * often write `VAR=`). `DISCORD_TOKEN` is another name for `DISCORD_BOT_TOKEN` (both may be set only to the
 * same token). Nothing else in the gateway reads these variables.
 */
import * as z from 'zod';
import { redactDatabaseUrl } from '../store/postgres/url';
import { makeError, describeValue, type ConfigError } from './errors';
import { DM_POLICIES, isHttpUrl, type DmPolicy } from './schema';
import { USER_REF_EXPECTED, formatUserRef, parseUserRef } from './user-ref';

/** Below this an admin token is guessable enough to matter (generated ones are 43 characters). */
export const MIN_ADMIN_TOKEN_LENGTH = 24;

export const ENV_SOURCE = 'environment';

export interface EnvValues {
  home?: string;
  configFile?: string;
  host?: string;
  port?: number;
  adminToken?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  model?: string;
  telegramBotToken?: string;
  telegramApiRoot?: string;
  slackBotToken?: string;
  slackSigningSecret?: string;
  slackAppToken?: string;
  slackApiUrl?: string;
  discordBotToken?: string;
  discordApiUrl?: string;
  databaseUrl?: string;
  instanceId?: string;
  dmPolicy?: DmPolicy;
  groupPolicy?: DmPolicy;
  allowUsers: string[];
}

type Env = Record<string, string | undefined>;

const DATABASE_URL = z.url({ protocol: /^postgres(ql)?$/ });
/** A rejected database URL is shown without its password (when it parses at all). */
const describeDatabaseUrl = (v: string) => (URL.canParse(v) ? describeValue(redactDatabaseUrl(v)) : 'a value that is not a URL');

export function readEnv(env: Env): { values: EnvValues; errors: ConfigError[] } {
  const errors: ConfigError[] = [];
  const bad = (name: string, expected: string, found: string) => errors.push(makeError({ source: ENV_SOURCE, path: name, expected, found }));
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const token = (name: string): string | undefined => {
    const v = get(name);
    if (v !== undefined && /\s/.test(v)) {
      bad(name, 'a token without spaces', 'a value containing whitespace');
      return undefined;
    }
    return v;
  };
  /** A token that may come under either name (gateway.md §8 says DISCORD_TOKEN); two different values are an error. */
  const aliasedToken = (name: string, alias: string): string | undefined => {
    const [main, other] = [token(name), token(alias)];
    if (main !== undefined && other !== undefined && main !== other) {
      bad(alias, `the same value as ${name} (both name the Discord bot token; set only one)`, `a different token than ${name}`);
      return undefined;
    }
    return main ?? other;
  };
  const url = (name: string): string | undefined => {
    const v = get(name);
    if (v !== undefined && !isHttpUrl(v)) {
      bad(name, 'an http or https URL', describeValue(v));
      return undefined;
    }
    return v;
  };

  const values: EnvValues = { allowUsers: [] };
  values.home = get('PENGUIN_HOME');
  values.configFile = get('PENGUIN_GATEWAY_CONFIG');

  const host = get('PENGUIN_GATEWAY_HOST');
  if (host !== undefined && /[\s/]/.test(host)) bad('PENGUIN_GATEWAY_HOST', 'a host name or IP address', describeValue(host));
  else values.host = host;

  const port = get('PENGUIN_GATEWAY_PORT');
  if (port !== undefined) {
    const n = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
    if (Number.isInteger(n) && n <= 65535) values.port = n;
    else bad('PENGUIN_GATEWAY_PORT', 'an integer port 0-65535', describeValue(port));
  }

  const admin = token('PENGUIN_ADMIN_TOKEN');
  if (admin !== undefined && admin.length < MIN_ADMIN_TOKEN_LENGTH) {
    bad('PENGUIN_ADMIN_TOKEN', `a token of at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. the output of \`openssl rand -base64 32\`), since it opens the whole admin API`, `${admin.length} characters`);
  } else values.adminToken = admin;
  values.openaiApiKey = token('OPENAI_API_KEY');
  values.openaiBaseUrl = url('OPENAI_BASE_URL');
  values.model = get('PENGUIN_MODEL');
  values.telegramBotToken = token('TELEGRAM_BOT_TOKEN');
  values.telegramApiRoot = url('TELEGRAM_API_ROOT');
  values.slackBotToken = token('SLACK_BOT_TOKEN');
  values.slackSigningSecret = token('SLACK_SIGNING_SECRET');
  const appToken = token('SLACK_APP_TOKEN');
  if (appToken !== undefined && !appToken.startsWith('xapp-')) bad('SLACK_APP_TOKEN', 'an app-level token starting with xapp-', 'a token with another prefix');
  else values.slackAppToken = appToken;
  values.slackApiUrl = url('SLACK_API_URL');
  values.discordBotToken = aliasedToken('DISCORD_BOT_TOKEN', 'DISCORD_TOKEN');
  values.discordApiUrl = url('DISCORD_API_URL');
  const database = get('PENGUIN_DATABASE_URL');
  if (database !== undefined && !DATABASE_URL.safeParse(database).success) {
    bad('PENGUIN_DATABASE_URL', 'a PostgreSQL URL, postgres://user:password@host:5432/database (or postgresql://…)', describeDatabaseUrl(database));
  } else values.databaseUrl = database;
  const instance = get('PENGUIN_INSTANCE_ID');
  if (instance !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(instance)) bad('PENGUIN_INSTANCE_ID', 'up to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit', describeValue(instance));
  else values.instanceId = instance;

  const policy = (name: string): DmPolicy | undefined => {
    const v = get(name);
    if (v === undefined) return undefined;
    if ((DM_POLICIES as readonly string[]).includes(v)) return v as DmPolicy;
    bad(name, `one of ${DM_POLICIES.join('|')}`, describeValue(v));
    return undefined;
  };
  values.dmPolicy = policy('PENGUIN_DM_POLICY');
  values.groupPolicy = policy('PENGUIN_GROUP_POLICY');

  const allow = get('PENGUIN_ALLOW_USERS');
  if (allow !== undefined) {
    const seen = new Set<string>();
    allow.split(',').forEach((raw, i) => {
      const entry = raw.trim();
      if (entry === '') return;
      const ref = parseUserRef(entry);
      if (!ref) {
        bad('PENGUIN_ALLOW_USERS', USER_REF_EXPECTED, `entry ${i + 1} ${describeValue(entry)}`);
        return;
      }
      const norm = formatUserRef(ref);
      if (!seen.has(norm)) {
        seen.add(norm);
        values.allowUsers.push(norm);
      }
    });
  }
  return { values, errors };
}
