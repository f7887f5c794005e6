/**
 * The `penguin-gateway` command line as functions: `runCli(argv, io)` and each command
 * `(args, io) => Promise<exitCode>`; `StartGateway` is the contract `src/gateway/main.ts` implements.
 */
export { runCli, type CliDeps } from './run';
export { parseCliArgs, type CliArgs } from './args';
export { EXIT_OK, EXIT_FAILED, EXIT_USAGE, UsageError, type CliIO } from './io';
export { startCommand, loadStartGateway, type StartGateway, type StartGatewayOptions, type RunningGateway } from './start';
export { doctorCommand, DEFAULT_DOCTOR_TIMEOUT_MS } from './doctor';
export { reindexCommand } from './reindex';
export { migrateCommand } from './migrate';
export { pairingCommand } from './pairing';
export { packageVersion } from './version';
export { USAGE } from './usage';
