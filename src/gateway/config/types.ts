/**
 * The resolved gateway config: the file merged with its defaults and the public environment contract
 * (gateway.md §8). Keys keep the file's snake_case spelling so code and `config/gateway.yaml` read alike;
 * values from the environment (credentials, API roots) sit in the section they configure.
 */
import type { ApprovalMode, DmPolicy, GroupPolicy, LogLevel, RouteMatch, SandboxMode, WorkspacePolicy } from './schema';
import type { Platform } from './user-ref';

export interface StreamingConfig {
  dm_edit_interval_ms: number;
  group_edit_interval_ms: number;
  typing_renew_ms: number;
}

interface ChatPlatformBase {
  enabled: boolean;
  /** Enabled and its credentials exist: the adapter is started. */
  configured: boolean;
  dm_policy: DmPolicy;
  /** Who may use the bot in groups (Telegram groups, Discord guilds, Slack channels of the workspace). */
  group_policy: GroupPolicy;
  streaming: StreamingConfig;
}

export interface TelegramConfig extends ChatPlatformBase {
  bot_token?: string;
  api_root: string;
  mode: 'polling' | 'webhook';
  webhook_url?: string;
  webhook_secret?: string;
  draft_streaming: boolean;
}

export interface SlackConfig extends ChatPlatformBase {
  bot_token?: string;
  signing_secret?: string;
  app_token?: string;
  api_url: string;
  /** From the file, else Socket Mode when an app token exists, else HTTP when a signing secret exists. */
  mode?: 'socket' | 'http';
  thread_follow_up: boolean;
  native_streaming: boolean;
  /** Socket Mode: re-open a link silent this long (0 = never). */
  socket_silence_ms: number;
}

export interface DiscordConfig extends ChatPlatformBase {
  bot_token?: string;
  api_url: string;
  /** Guilds whose slash commands are registered per guild (development); empty = global commands. */
  guild_ids: string[];
  /** Whether the privileged Message Content intent is requested. */
  message_content: boolean;
  /** Gateway shards the guilds are split over; instances on one database share them out. */
  shard_count: number;
}

export interface WebConfig {
  enabled: boolean;
  configured: boolean;
  /** The playground sits behind the admin login: everyone who reaches it is the operator. */
  dm_policy: 'open';
  group_policy: 'open';
  streaming: StreamingConfig;
}

export interface RouteAccess {
  /** `platform:user_id`; empty = anyone. */
  users: string[];
  roles: string[];
  channels: string[];
}

export interface ResolvedRoute {
  /** Stable name (usage and sessions are indexed by it): the file's `name`, or derived from the match; `default` for the default route. */
  name: string;
  /** Absent on the default route. */
  match?: RouteMatch;
  project: string;
  agent: string;
  approval_mode: ApprovalMode;
  /**
   * Set by the operator: the laxest mode a scheduled run delivered on this route may use. Absent = the
   * route's `approval_mode` caps scheduled runs (a schedule file, which the agent can write, never lifts it).
   */
  schedule_approval_mode?: ApprovalMode;
  workspace_policy: WorkspacePolicy;
  /** Absolute; required for `fixed`, optional base directory for `per_channel`. */
  workspace_path?: string;
  /** `platform:user_id` entries who may decide approvals besides the Task's starter. */
  approvers: string[];
  access: RouteAccess;
  tools: { network: boolean };
}

export interface ToolsConfig {
  sandbox: SandboxMode;
  network: boolean;
  env_passthrough: string[];
  readonly_paths: string[];
}

export interface GatewayConfig {
  /** Absolute path of the file that was read, or undefined when running on defaults. */
  config_file?: string;
  /** Absolute data root. */
  home: string;
  /** `<home>/gateway.db`. */
  db_path: string;
  /** PENGUIN_DATABASE_URL: the index lives in this PostgreSQL database instead of `db_path`. */
  database_url?: string;
  listen: { host: string; port: number };
  logging: { level: LogLevel };
  approvals: { timeout_ms: number };
  /**
   * Idle sessions leave memory after `idle_evict_ms`, and sooner, least recently active first, while more
   * than `max_in_memory` are held or the V8 heap in use is past `heap_budget_mb` (default: 70 % of its limit).
   * `idle_gc_ms`: quiet time before one collection returns a burst's garbage (0: never).
   * `young_generation_mb`: V8's young generation stops growing at this size, or a sixteenth of the heap in use
   * when that is more (0: V8's own, up to 32 MB).
   */
  sessions: { idle_evict_ms: number; max_in_memory: number; idle_gc_ms: number; heap_budget_mb?: number; young_generation_mb: number };
  shutdown: { grace_ms: number };
  tools: ToolsConfig;
  reply: { usage_footer: boolean };
  retention: { delivery_events_days: number };
  /**
   * This instance among several on one PostgreSQL database: `instance_id` from PENGUIN_INSTANCE_ID (else
   * made at start); an instance whose heartbeat is older than `lease_ms` is taken over by a live one.
   */
  cluster: { instance_id?: string; lease_ms: number };
  admin_token?: string;
  model: { api_key?: string; base_url?: string; model_id?: string };
  /** `PENGUIN_ALLOW_USERS`, normalised `platform:user_id`. */
  allow_users: string[];
  telegram: TelegramConfig;
  slack: SlackConfig;
  discord: DiscordConfig;
  web: WebConfig;
  routes: ResolvedRoute[];
  default_route: ResolvedRoute;
}

/** What a conversation is routed by; pass a thread's parent channel as `channel`. */
export interface RouteScope {
  platform: Platform;
  workspace?: string;
  guild?: string;
  chat?: string;
  channel?: string;
}
