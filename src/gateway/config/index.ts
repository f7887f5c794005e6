/** Gateway config: `loadGatewayConfig` (file + environment, validated), route resolution, error formatting. */
export { loadGatewayConfig, expandPath, DEFAULT_CONFIG_PATH, type LoadOptions, type LoadResult } from './load';
export { formatConfigErrors, type ConfigError } from './errors';
export { resolveRoute, routeNameOf, scopeIdOf } from './routes';
export { redactConfig } from './redact';
export { readEnv, type EnvValues } from './env';
export {
  APPROVAL_MODES, DM_POLICIES, WORKSPACE_POLICIES, LOG_LEVELS, DEFAULTS,
  type ApprovalMode, type DmPolicy, type WorkspacePolicy, type LogLevel, type RouteMatch,
} from './schema';
export { PLATFORMS, CHAT_PLATFORMS, parseUserRef, formatUserRef, isPlatform, type Platform, type ChatPlatform, type UserRef } from './user-ref';
export type * from './types';
export { PLATFORM_CREDENTIALS, platformOff, offHint, type PlatformOff } from './enable-hints';
