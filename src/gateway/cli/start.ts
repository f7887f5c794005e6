/**
 * `penguin-gateway start`: loads and validates the config (errors ⇒ exit 1 before any data is touched),
 * then hands over to `startGateway` from `../main`, loaded on demand so the other commands never load
 * the runtime, adapters and SDKs. The contract `main` implements is `StartGateway` below: it resolves
 * once the gateway runs, and `done` settles with the exit code after it has shut down.
 */
import type { GatewayConfig } from '../config';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli } from './config';
import { EXIT_FAILED, line, type CliIO } from './io';

export interface StartGatewayOptions {
  config: GatewayConfig;
  /** The process's environment (for ensureAdminToken) and where first-start output goes (stdout, not the log). */
  env: Record<string, string | undefined>;
  stdout: CliIO['stdout'];
  stderr: CliIO['stderr'];
}

export interface RunningGateway {
  /** Settles after shutdown (SIGTERM/SIGINT or a fatal error) with the process exit code. */
  readonly done: Promise<number>;
}

export type StartGateway = (opts: StartGatewayOptions) => Promise<RunningGateway>;

export function loadStartGateway(): StartGateway {
  const mod = require('../main') as { startGateway?: unknown };
  if (typeof mod.startGateway !== 'function') throw new Error('src/gateway/main does not export startGateway');
  return mod.startGateway as StartGateway;
}

export async function startCommand(args: CliArgs, io: CliIO, load: () => StartGateway = loadStartGateway): Promise<number> {
  expectNoMore(args);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  let running: RunningGateway;
  try {
    running = await load()({ config, env: io.env, stdout: io.stdout, stderr: io.stderr });
  } catch (e) {
    // First line only: module-loading errors append a require stack that helps nobody running the CLI.
    line(io.stderr, `penguin-gateway: could not start: ${String((e as Error).message).split('\n')[0]}`);
    return EXIT_FAILED;
  }
  return running.done;
}
