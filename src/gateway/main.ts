/**
 * `penguin-gateway start`: builds the gateway from the validated config (src/gateway/runtime/gateway.ts)
 * with the platform adapters whose credentials exist (src/gateway/platforms.ts), prints the start-up
 * summary once the agents are loaded (./startup-summary.ts), then waits for SIGTERM or SIGINT to shut down
 * gracefully. A second signal exits at once. `done` settles with the exit code.
 */
import { SecretRedactor } from '../adapters/render';
import type { StartGateway } from './cli/start';
import { createLogger } from './logger';
import { buildPlatforms } from './platforms';
import { createGateway } from './runtime/gateway';
import { exposeGc } from './runtime/v8-gc';
import { baselineWasmOnly } from './runtime/v8-wasm';
import { capYoungGeneration } from './runtime/v8-young-generation';
import { printStartupSummary, startupSummary } from './startup-summary';

export const startGateway: StartGateway = async (opts) => {
  baselineWasmOnly();
  const youngMb = opts.config.sessions.young_generation_mb;
  if (youngMb > 0) capYoungGeneration(youngMb * 1024 * 1024);
  const redactor = new SecretRedactor();
  const logger = createLogger(opts.config, undefined, redactor);
  const gateway = await createGateway({
    config: opts.config,
    env: opts.env,
    logger,
    redactor,
    stdout: opts.stdout,
    platforms: (ctx) => buildPlatforms(opts.config, ctx),
    collectGarbage: exposeGc(),
  });
  let stopping = false;
  const done = new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        logger.warn({ signal }, 'second signal: exiting now');
        process.exit(130);
      }
      stopping = true;
      logger.info({ signal }, 'shutting down');
      gateway.shutdown('gateway shutting down').then(
        () => {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          resolve(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  // Said only once the signal handlers are in place: whoever waits for this line may stop the process at once.
  opts.stdout.write(`penguin-gateway listening on ${gateway.url}\n`);
  void gateway.agents.then((agents) => {
    if (stopping) return;
    const lines = startupSummary({ config: opts.config, url: gateway.url, adapters: gateway.health().adapters, agents, adminToken: gateway.adminToken });
    printStartupSummary(lines, opts.stdout, logger, opts.config.home);
  });
  return { done };
};
