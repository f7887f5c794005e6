/**
 * The zod schema of `config/gateway.yaml`, built by `buildFileSchema` for each load. Every mapping is strict
 * (an unknown key is an error) and every key has its default here, so an absent file and an empty file mean
 * the same thing. Cross-key rules that need the environment (credentials, modes) live in platform-checks.ts
 * and resolve-sections.ts; route inheritance lives in routes.ts.
 */
import * as z from 'zod';
import { DISCORD_LIMITS, SLACK_LIMITS, TELEGRAM_LIMITS, WEB_LIMITS, type PlatformLimits } from '../../adapters/contract/limits';
import { PLATFORMS, USER_REF_EXPECTED, parseUserRef } from './user-ref';

function pacingOf(l: PlatformLimits) {
  return { dm_edit_interval_ms: l.minEditIntervalMs.dm, group_edit_interval_ms: l.minEditIntervalMs.group, typing_renew_ms: l.typingRenewMs };
}

export const DM_POLICIES = ['pairing', 'allowlist', 'open', 'disabled'] as const;
export type DmPolicy = (typeof DM_POLICIES)[number];
/** Group policies take the same values as DM policies. */
export type GroupPolicy = DmPolicy;
export const SANDBOX_MODES = ['auto', 'bubblewrap', 'none'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
/** Names a tool must never receive, whatever `tools.env_passthrough` says: the gateway's own credentials. */
export const CREDENTIAL_VARIABLE = /^(PENGUIN_|OPENAI_|TELEGRAM_|SLACK_|DISCORD_)/;
export const APPROVAL_MODES = ['allow-all', 'deny-all', 'read-only', 'always-ask'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const WORKSPACE_POLICIES = ['temp', 'fixed', 'per_channel'] as const;
export type WorkspacePolicy = (typeof WORKSPACE_POLICIES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 7370,
  home: '~/.penguin/data',
  approvalTimeoutMs: 3_600_000,
  idleEvictMs: 1_800_000,
  idleGcMs: 1000,
  youngGenerationMb: 8,
  maxSessionsInMemory: 10_000,
  shutdownGraceMs: 10_000,
  logLevel: 'info' as LogLevel,
  project: 'default_project',
  agent: 'default_agent',
  approvalMode: 'read-only' as ApprovalMode,
  workspacePolicy: 'temp' as WorkspacePolicy,
  dmPolicy: 'pairing' as DmPolicy,
  /** Anyone can add a bot to a Telegram group or a Discord guild; the Slack workspace the app is installed in is trusted. */
  groupPolicy: { telegram: 'pairing', discord: 'pairing', slack: 'open' } as const satisfies Record<string, GroupPolicy>,
  sandbox: 'auto' as SandboxMode,
  network: true,
  telegramApiRoot: 'https://api.telegram.org',
  slackApiUrl: 'https://slack.com/api/',
  /** Socket Mode: a link that delivered nothing for 30 minutes is re-opened (Slack's own refreshes are hours apart). */
  slackSocketSilenceMs: 1_800_000,
  discordApiUrl: 'https://discord.com/api',
  /** Edit intervals and typing renewals per platform: the adapters' limit tables (platforms.md §5). */
  streaming: {
    telegram: pacingOf(TELEGRAM_LIMITS),
    slack: pacingOf(SLACK_LIMITS),
    discord: pacingOf(DISCORD_LIMITS),
    web: pacingOf(WEB_LIMITS),
  },
} as const;

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The file's schema, built for each load and then let go: with what zod compiles at its first parse it is
 * ~0.5 MB of heap that a running gateway would otherwise hold for its whole life to read one file.
 */
export function buildFileSchema() {
  const ms = (what: string) => z.number({ error: `expected ${what} in milliseconds (an integer >= 0)` }).int({ error: `expected ${what} in milliseconds (an integer >= 0)` }).min(0);
  const positiveMs = (what: string) => z.number({ error: `expected ${what} in milliseconds (an integer >= 1)` }).int({ error: `expected ${what} in milliseconds (an integer >= 1)` }).min(1);

  // Ids may be written unquoted in YAML (Telegram chat ids are numbers); integers too big to read exactly must be quoted.
  const idString = z.preprocess(
    (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v),
    z.string({ error: 'expected an id (quote numbers longer than 15 digits)' }).regex(/^[^\s:]+$/, { error: 'expected an id without spaces or colons' }),
  );

  // Directory-safe names: projects and agents are folders under the data root.
  const dirName = (what: string) =>
    z.string({ error: `expected a ${what} name` }).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, { error: `expected a ${what} name (letters, digits, _ . -; no slashes)` });

  const userRefString = z.string({ error: `expected ${USER_REF_EXPECTED}` }).refine((s) => parseUserRef(s) !== undefined, { error: `expected ${USER_REF_EXPECTED}` });

  const httpUrl = (what: string) =>
    z.string({ error: `expected ${what} (an http or https URL)` }).refine((s) => isHttpUrl(s), { error: `expected ${what} (an http or https URL)` });


  const streaming = (d: { dm_edit_interval_ms: number; group_edit_interval_ms: number; typing_renew_ms: number }) =>
    z
      .strictObject({
        /** Least time between two edits of one live reply in a direct message. */
        dm_edit_interval_ms: ms('the DM edit interval').default(d.dm_edit_interval_ms),
        /** Least time between two edits of one live reply in a group or channel. */
        group_edit_interval_ms: ms('the group edit interval').default(d.group_edit_interval_ms),
        /** How often the typing indicator is renewed while a Task runs (0 = never). */
        typing_renew_ms: ms('the typing renewal interval').default(d.typing_renew_ms),
      })
      .prefault({});

  const dmPolicy = z.enum(DM_POLICIES).optional();
  const groupPolicy = z.enum(DM_POLICIES).optional();

  const telegramSection = z
    .strictObject({
      enabled: z.boolean().default(true),
      dm_policy: dmPolicy,
      group_policy: groupPolicy,
      mode: z.enum(['polling', 'webhook']).default('polling'),
      webhook_url: httpUrl('the public webhook URL').optional(),
      webhook_secret: z
        .string({ error: 'expected a secret token of 1-256 characters A-Z a-z 0-9 _ -' })
        .regex(/^[A-Za-z0-9_-]{1,256}$/, { error: 'expected a secret token of 1-256 characters A-Z a-z 0-9 _ -' })
        .optional(),
      draft_streaming: z.boolean().default(true),
      api_root: httpUrl('the Bot API root').optional(),
      streaming: streaming(DEFAULTS.streaming.telegram),
    })
    .prefault({});

  const slackSection = z
    .strictObject({
      enabled: z.boolean().default(true),
      dm_policy: dmPolicy,
      group_policy: groupPolicy,
      mode: z.enum(['socket', 'http']).optional(),
      api_url: httpUrl('the Web API root').optional(),
      /** Messages in a thread the bot answered continue its session without a mention. */
      thread_follow_up: z.boolean().default(true),
      /** Stream replies natively in threads (chat.startStream / appendStream / stopStream); false = post + update. */
      native_streaming: z.boolean().default(true),
      /** Socket Mode: re-open a link that delivered no event for this long (0 = never). */
      socket_silence_ms: ms('the Socket Mode silence limit').default(DEFAULTS.slackSocketSilenceMs),
      streaming: streaming(DEFAULTS.streaming.slack),
    })
    .prefault({});

  const discordSection = z
    .strictObject({
      enabled: z.boolean().default(true),
      dm_policy: dmPolicy,
      group_policy: groupPolicy,
      api_url: httpUrl('the REST API root').optional(),
      /** Register the slash commands in these guilds only (instant, for development); empty = globally. */
      guild_ids: z.array(idString, { error: 'expected a list of guild ids' }).default([]),
      /** Ask for the privileged Message Content intent (follow-ups in bot threads without a mention). */
      message_content: z.boolean().default(false),
      /** Gateway shards the bot's guilds are split over; several instances each connect a share of them. */
      shard_count: z
        .number({ error: 'expected a whole number of shards (1 or more)' })
        .int('expected a whole number of shards (1 or more)')
        .min(1, 'expected at least 1 shard')
        .max(1024, 'expected at most 1024 shards (ask Discord for more only when it says so)')
        .default(1),
      streaming: streaming(DEFAULTS.streaming.discord),
    })
    .prefault({});

  const webSection = z
    .strictObject({
      enabled: z.boolean().default(true),
      streaming: streaming(DEFAULTS.streaming.web),
    })
    .prefault({});

  const accessSchema = z.strictObject({
    users: z.array(userRefString).default([]),
    roles: z.array(idString).default([]),
    channels: z.array(idString).default([]),
  });

  const envName = z
    .string({ error: 'expected an environment variable name' })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' })
    .refine((n) => !CREDENTIAL_VARIABLE.test(n), { error: "expected a variable that is not one of the gateway's own (PENGUIN_*, OPENAI_*, TELEGRAM_*, SLACK_*, DISCORD_*)" });

  const absolutePath = z.string({ error: 'expected an absolute path' }).regex(/^\//, { error: 'expected an absolute path' });

  // How tools are isolated (gateway.md §6); `network` is the default of every route.
  const toolsSection = z
    .strictObject({
      sandbox: z.enum(SANDBOX_MODES).default(DEFAULTS.sandbox),
      network: z.boolean().default(DEFAULTS.network),
      /** Host variables passed to tools on purpose (e.g. HTTPS_PROXY); credentials of the gateway are refused. */
      env_passthrough: z.array(envName).default([]),
      /** Extra host paths a sandboxed command may read (e.g. /opt/toolchain). */
      readonly_paths: z.array(absolutePath).default([]),
    })
    .prefault({});

  // The keys a route may set; every key left out comes from `default_route`.
  const routeFields = {
    project: dirName('project').optional(),
    agent: dirName('agent').optional(),
    approval_mode: z.enum(APPROVAL_MODES).optional(),
    /** The laxest mode a scheduled run delivered on this route may use; absent = `approval_mode`. */
    schedule_approval_mode: z.enum(APPROVAL_MODES).optional(),
    workspace_policy: z.enum(WORKSPACE_POLICIES).optional(),
    workspace_path: z.string({ error: 'expected a directory path' }).min(1, { error: 'expected a directory path' }).optional(),
    approvers: z.array(userRefString).optional(),
    access: accessSchema.optional(),
    tools: z.strictObject({ network: z.boolean().optional() }).optional(),
  };

  const routeMatchSchema = z.strictObject({
    platform: z.enum(PLATFORMS),
    /** Slack workspace (team) id. */
    workspace: idString.optional(),
    /** Discord guild id. */
    guild: idString.optional(),
    /** Telegram chat id. */
    chat: idString.optional(),
    /** Slack or Discord channel id. */
    channel: idString.optional(),
  });

  const routeSchema = z.strictObject({
    name: z.string({ error: 'expected a route name' }).regex(/^[A-Za-z0-9_.:*-]{1,100}$/, { error: 'expected a route name (letters, digits, _ . : * -)' }).optional(),
    match: routeMatchSchema,
    ...routeFields,
  });

  return z.strictObject({
    listen: z
      .strictObject({
        host: z.string({ error: 'expected a host name or IP address' }).regex(/^[^\s/]+$/, { error: 'expected a host name or IP address' }).optional(),
        port: z.number({ error: 'expected an integer port 0-65535' }).int({ error: 'expected an integer port 0-65535' }).min(0, { error: 'expected an integer port 0-65535' }).max(65535, { error: 'expected an integer port 0-65535' }).optional(),
      })
      .prefault({}),
    home: z.string({ error: 'expected a directory path' }).min(1, { error: 'expected a directory path' }).optional(),
    logging: z.strictObject({ level: z.enum(LOG_LEVELS).default(DEFAULTS.logLevel) }).prefault({}),
    approvals: z.strictObject({ timeout_ms: positiveMs('the approval timeout').default(DEFAULTS.approvalTimeoutMs) }).prefault({}),
    sessions: z
      .strictObject({
        idle_evict_ms: positiveMs('the idle eviction time').default(DEFAULTS.idleEvictMs),
        max_in_memory: z.number({ error: 'expected a number of sessions (an integer >= 1)' }).int({ error: 'expected a number of sessions (an integer >= 1)' }).min(1, { error: 'expected a number of sessions (an integer >= 1)' }).default(DEFAULTS.maxSessionsInMemory),
        idle_gc_ms: ms('the quiet time before an idle collection (0 turns it off)').default(DEFAULTS.idleGcMs),
        heap_budget_mb: z.number({ error: 'expected a heap size in MB (an integer >= 16)' }).int({ error: 'expected a heap size in MB (an integer >= 16)' }).min(16, { error: 'expected a heap size in MB (an integer >= 16)' }).optional(),
        young_generation_mb: z.number({ error: 'expected a size in MB (an integer >= 0; 0 leaves V8 its own)' }).int({ error: 'expected a size in MB (an integer >= 0; 0 leaves V8 its own)' }).min(0, { error: 'expected a size in MB (an integer >= 0; 0 leaves V8 its own)' }).default(DEFAULTS.youngGenerationMb),
      })
      .prefault({}),
    shutdown: z.strictObject({ grace_ms: positiveMs('the shutdown grace time').default(DEFAULTS.shutdownGraceMs) }).prefault({}),
    tools: toolsSection,
    /** How finished replies look; tokens, cost and duration otherwise live in /status and the dashboard. */
    reply: z.strictObject({ usage_footer: z.boolean().default(false) }).prefault({}),
    /** How long diagnostic rows are kept in the index (traces and the journal are kept forever). */
    retention: z.strictObject({
      delivery_events_days: z.number({ error: 'expected a number of days' }).int({ error: 'expected a whole number of days' }).min(1, { error: 'expected at least 1 day' }).max(3650, { error: 'expected at most 3650 days' }).default(30),
    }).prefault({}),
    /** Several instances on one PostgreSQL database: an instance silent for `lease_ms` is dead and its conversations are taken over. */
    cluster: z.strictObject({
      lease_ms: z.number({ error: 'expected milliseconds (an integer from 1000 to 600000)' }).int({ error: 'expected whole milliseconds' }).min(1000, { error: 'expected at least 1000 ms' }).max(600_000, { error: 'expected at most 600000 ms' }).default(15_000),
    }).prefault({}),
    telegram: telegramSection,
    slack: slackSection,
    discord: discordSection,
    web: webSection,
    default_route: z.strictObject(routeFields).prefault({}),
    routes: z.array(routeSchema, { error: 'expected a list of routes' }).default([]),
  });
}

export type FileConfig = z.infer<ReturnType<typeof buildFileSchema>>;
export type FileRoute = FileConfig['routes'][number];
export type FileRouteFields = FileConfig['default_route'];
export type RouteMatch = FileRoute['match'];

/** Known keys per mapping, for "unknown key" errors (array indices collapse to the element schema). */
export function knownKeysAt(fileSchema: z.ZodType, path: readonly (string | number)[]): string[] | undefined {
  let schema: z.ZodType = fileSchema;
  for (const seg of path) {
    schema = unwrap(schema);
    if (typeof seg === 'number') {
      if (!(schema instanceof z.ZodArray)) return undefined;
      schema = schema.element as z.ZodType;
    } else {
      if (!(schema instanceof z.ZodObject)) return undefined;
      const next = (schema.shape as Record<string, z.ZodType>)[seg];
      if (!next) return undefined;
      schema = next;
    }
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
}

function unwrap(s: z.ZodType): z.ZodType {
  let cur: z.ZodType = s;
  for (;;) {
    if (cur instanceof z.ZodOptional || cur instanceof z.ZodDefault || cur instanceof z.ZodPrefault) cur = cur.unwrap() as z.ZodType;
    else return cur;
  }
}
