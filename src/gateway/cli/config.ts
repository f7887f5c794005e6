/**
 * Loading the config for a command: `--config` (else PENGUIN_GATEWAY_CONFIG, else config/gateway.yaml)
 * plus the environment. On errors every one is printed with `formatConfigErrors` and the command stops
 * with exit code 1 before it opens the database or touches the data root.
 */
import { formatConfigErrors, loadGatewayConfig, type GatewayConfig } from '../config';
import { describeRebuild, openGatewayStore, StoreError, type GatewayStoreHandle } from '../store';
import type { CliArgs } from './args';
import { EXIT_FAILED, line, type CliIO } from './io';

export function loadConfigForCli(args: Pick<CliArgs, 'config'>, io: CliIO): GatewayConfig | undefined {
  const r = loadGatewayConfig({ argv: args.config !== undefined ? ['--config', args.config] : [], env: io.env, cwd: io.cwd });
  if (r.ok) return r.config;
  line(io.stderr, `penguin-gateway: the configuration has ${r.errors.length} error${r.errors.length === 1 ? '' : 's'}:`);
  line(io.stderr, formatConfigErrors(r.errors));
  return undefined;
}

/**
 * Opens (and migrates) the store, runs `fn`, closes it; a store error is printed and gives exit code 1.
 * A missing or unreadable database is rebuilt from the files first (said on stderr), unless `rebuild: false`.
 */
export async function withStore(
  config: GatewayConfig,
  io: CliIO,
  fn: (h: GatewayStoreHandle) => Promise<number>,
  o: { rebuild?: boolean } = {},
): Promise<number> {
  let h: GatewayStoreHandle;
  try {
    h = await openGatewayStore({ dbPath: config.db_path, databaseUrl: config.database_url, home: config.home, ...(o.rebuild === false ? { rebuild: false } : {}) });
  } catch (e) {
    if (e instanceof StoreError) {
      line(io.stderr, `penguin-gateway: ${e.message}`);
      return EXIT_FAILED;
    }
    throw e;
  }
  if (h.rebuilt) line(io.stderr, `penguin-gateway: ${describeRebuild(h.rebuilt, h.index.location)}`);
  try {
    return await fn(h);
  } finally {
    await h.index.close();
  }
}
