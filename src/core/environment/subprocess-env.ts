/**
 * Environment variables for tool subprocesses (engine.md §4.5): the host env minus the server's own
 * variables, then the Vault on top, then the forced non-interactive settings. MCP stdio servers get the
 * same minus the Vault (`buildMcpServerEnv`), plus their configured `env`.
 */

/** Host variables a tool process must not inherit. */
export const DROPPED_HOST_VARIABLES = [
  'PORT', 'HOST', 'PENGUIN_CLI_ENTRY', 'PENGUIN_WEB_DIST', 'FORCE_COLOR', 'CLICOLOR_FORCE',
  'PENGUIN_DESKTOP_TOKEN', 'PENGUIN_PORT_FILE', 'PENGUIN_SEED_ADMIN_PASSWORD',
] as const;

/** Always set, so tools never wait on an editor, a pager, a credential prompt or colour codes. */
export const FORCED_VARIABLES: Readonly<Record<string, string>> = {
  GIT_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  TERM: 'dumb',
  NO_COLOR: '1',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
};

function sanitizedHost(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const dropped = new Set<string>(DROPPED_HOST_VARIABLES);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(hostEnv)) if (v !== undefined && !dropped.has(k)) env[k] = v;
  return env;
}

export function buildSubprocessEnv(hostEnv: NodeJS.ProcessEnv, vault: Record<string, string> = {}): Record<string, string> {
  return { ...sanitizedHost(hostEnv), ...vault, ...FORCED_VARIABLES };
}

export function buildMcpServerEnv(hostEnv: NodeJS.ProcessEnv, serverEnv: Record<string, string> = {}): Record<string, string> {
  return { ...sanitizedHost(hostEnv), ...FORCED_VARIABLES, ...serverEnv };
}
