/**
 * `loadGatewayConfig({argv, env, cwd})`: finds the config file (`--config`, else `PENGUIN_GATEWAY_CONFIG`,
 * else `config/gateway.yaml` when present, else none), validates it and the environment, and returns the
 * resolved config (built by resolve-sections.ts) or every error found. It reads files and nothing else: no
 * directory is created here. Precedence: environment > file > default, except DM and group policies,
 * where a per-platform file value wins over `PENGUIN_DM_POLICY` / `PENGUIN_GROUP_POLICY` (gateway.md §8).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { describeValue, formatPath, issuesToErrors, makeError, valueAt, type ConfigError, type PathSegment } from './errors';
import { ENV_SOURCE, readEnv, type EnvValues } from './env';
import { checkSlackCredentials, checkTelegramWebhook } from './platform-checks';
import { resolveSections, resolveSlackMode } from './resolve-sections';
import { resolveRoutes, type ReportError } from './routes';
import { DEFAULTS, buildFileSchema, knownKeysAt, type FileConfig } from './schema';
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
  const shown = located ? displayPath(located, cwd) : '';
  const { file, source } = readConfigFile(located, missing, shown, errors);
  if (!file) return { ok: false, errors };

  const report = reporter(errors, shown || 'defaults', source);
  const { routes, default_route } = resolveRoutes(file, expand, report);
  checkTelegramWebhook(file.telegram, report);
  const slackMode = resolveSlackMode(file.slack, ev);
  errors.push(...checkSlackCredentials(file.slack, ev, slackMode, shown));
  if (errors.length > 0) return { ok: false, errors };

  const home = expand(ev.home ?? file.home ?? DEFAULTS.home);
  return { ok: true, config: resolveSections(file, ev, { home, configFile: located, slackMode, routes, default_route }) };
}

/**
 * Reads, parses and validates the located file; without one, the defaults (unless a named file was
 * `missing`). `file` is undefined when there is nothing valid to resolve; the errors say why.
 */
function readConfigFile(
  located: string | undefined,
  missing: boolean,
  shown: string,
  errors: ConfigError[],
): { file: FileConfig | undefined; source: YamlSource } {
  const none: YamlSource = { data: {}, locate: () => undefined };
  if (!located) return { file: missing ? undefined : buildFileSchema().parse({}), source: none };
  let text: string;
  try {
    text = readFileSync(located, 'utf8');
  } catch (e) {
    errors.push(makeError({ source: shown, path: '(file)', expected: 'a readable file', found: (e as Error).message }));
    return { file: undefined, source: none };
  }
  const parsed = parseYamlSource(text, shown);
  if (!parsed.ok) {
    errors.push(...parsed.errors);
    return { file: undefined, source: none };
  }
  const data = parsed.value.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    errors.push(makeError({ source: shown, path: '(root)', expected: 'a mapping of settings', found: describeValue(data), ...parsed.value.locate([]) }));
    return { file: undefined, source: none };
  }
  const source = parsed.value;
  const fileSchema = buildFileSchema();
  const r = fileSchema.safeParse(source.data);
  if (r.success) return { file: r.data, source };
  errors.push(...issuesToErrors(r.error.issues, { source: shown, data: source.data, locate: source.locate, knownKeys: (path) => knownKeysAt(fileSchema, path) }));
  return { file: undefined, source };
}

/** Reports a problem at a file path, quoting the value found there and its line when the file has one. */
function reporter(errors: ConfigError[], sourceName: string, source: YamlSource): ReportError {
  return (path: PathSegment[], expected: string, found?: string) => {
    errors.push(makeError({ source: sourceName, path: formatPath(path), expected, found: found ?? describeValue(valueAt(source.data, path)), ...source.locate(path) }));
  };
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
