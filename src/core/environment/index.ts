/** The Environment (engine.md §4): built-in tools, command sessions, subagents and MCP servers. */
export { Environment, type EnvironmentOptions } from './environment';
export { DEFAULT_BUILTIN_TOOLS } from './default-tools';
export {
  buildSubprocessEnv, buildMcpServerEnv, DROPPED_HOST_VARIABLES, FORCED_VARIABLES, ALLOWLISTED_VARIABLES, toolHomeDir,
  type SubprocessEnvPolicy,
} from './subprocess-env';
export { PathConfinement } from './confinement';
export { probeBubblewrap, findBubblewrap, bubblewrapArgs, type SandboxProbe } from './sandbox';
export { parseServerConfig, type McpServerSpec } from './mcp/config';
export { stripDescriptionParameter } from './assembly';
