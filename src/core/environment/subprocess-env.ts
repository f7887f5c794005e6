/**
 * Environment variables for tool subprocesses (engine.md §4.5). Two policies: `inherit` (PenguinHarness's:
 * the host env minus the server's own variables) and `allowlist` (the gateway's: only the variables a shell
 * needs, a HOME inside the workspace and the operator's named pass-throughs, so no credential of the host
 * process can reach a tool). Either way the Vault goes on top, then the forced non-interactive settings.
 * MCP stdio servers get the same base minus the Vault, plus their configured `env`.
 */
import * as path from 'node:path';

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

/** What a shell and common tools need and that never holds a secret: search path, locale, time zone, identity, CA bundles. */
export const ALLOWLISTED_VARIABLES = [
  'PATH', 'LANG', 'LANGUAGE', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE',
] as const;

/** Locale categories (`LC_ALL`, `LC_CTYPE`, …) pass too. */
const LOCALE_VARIABLE = /^LC_[A-Z_]+$/;

/** The HOME a tool sees under the allowlist policy: a directory of the workspace, so `~` never means the gateway's home. */
export const toolHomeDir = (workspaceDir: string) => path.join(workspaceDir, '.home');

export type SubprocessEnvPolicy =
  | { mode: 'inherit' }
  | {
    mode: 'allowlist';
    /** Extra host variable names the operator passes on purpose (e.g. HTTPS_PROXY). */
    passthrough?: readonly string[];
  };

export const INHERIT_HOST_ENV: SubprocessEnvPolicy = { mode: 'inherit' };

function sanitizedHost(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const dropped = new Set<string>(DROPPED_HOST_VARIABLES);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(hostEnv)) if (v !== undefined && !dropped.has(k)) env[k] = v;
  return env;
}

function allowlistedHost(hostEnv: NodeJS.ProcessEnv, workspaceDir: string, passthrough: readonly string[]): Record<string, string> {
  const named = new Set<string>([...ALLOWLISTED_VARIABLES, ...passthrough]);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(hostEnv)) if (v !== undefined && (named.has(k) || LOCALE_VARIABLE.test(k))) env[k] = v;
  env.HOME = toolHomeDir(workspaceDir);
  if (!env.PATH) env.PATH = '/usr/local/bin:/usr/bin:/bin';
  return env;
}

/** The base every subprocess of a Session starts from, before the Vault and the forced variables. */
export function hostBaseEnv(hostEnv: NodeJS.ProcessEnv, policy: SubprocessEnvPolicy, workspaceDir: string): Record<string, string> {
  return policy.mode === 'allowlist' ? allowlistedHost(hostEnv, workspaceDir, policy.passthrough ?? []) : sanitizedHost(hostEnv);
}

export function buildSubprocessEnv(
  hostEnv: NodeJS.ProcessEnv,
  vault: Record<string, string> = {},
  policy: SubprocessEnvPolicy = INHERIT_HOST_ENV,
  workspaceDir = process.cwd(),
): Record<string, string> {
  return { ...hostBaseEnv(hostEnv, policy, workspaceDir), ...vault, ...FORCED_VARIABLES };
}

export function buildMcpServerEnv(
  hostEnv: NodeJS.ProcessEnv,
  serverEnv: Record<string, string> = {},
  policy: SubprocessEnvPolicy = INHERIT_HOST_ENV,
  workspaceDir = process.cwd(),
): Record<string, string> {
  return { ...hostBaseEnv(hostEnv, policy, workspaceDir), ...FORCED_VARIABLES, ...serverEnv };
}
