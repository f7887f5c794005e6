/**
 * `runCli(argv, io)`: the whole command line in one call. Parses arguments, answers --help/--version,
 * dispatches to the command function and turns a UsageError into the usage hint with exit code 2.
 * Each command's module is required when that command runs, so `start` loads none of the others.
 * `deps.loadStart` replaces the lazily loaded `startGateway` and `deps.pickupWaitMs` how long `schedules run`
 * waits to see the gateway take the run (tests).
 */
import type * as Admin from './admin';
import { parseCliArgs, type CliArgs } from './args';
import type * as Doctor from './doctor';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, line, type CliIO } from './io';
import type * as Migrate from './migrate';
import type * as Pairing from './pairing';
import type * as Reindex from './reindex';
import type * as Schedules from './schedules';
import { startCommand, type StartGateway } from './start';
import { COMMAND_HELP, USAGE } from './usage';
import { packageVersion } from './version';

export interface CliDeps {
  loadStart?: () => StartGateway;
  pickupWaitMs?: number;
}

type Command = (args: CliArgs, io: CliIO) => Promise<number>;

export async function runCli(argv: readonly string[], io: CliIO, deps: CliDeps = {}): Promise<number> {
  const commands: Record<string, Command> = {
    start: (a, i) => startCommand(a, i, deps.loadStart),
    doctor: (a, i) => (require('./doctor') as typeof Doctor).doctorCommand(a, i),
    reindex: (a, i) => (require('./reindex') as typeof Reindex).reindexCommand(a, i),
    migrate: (a, i) => (require('./migrate') as typeof Migrate).migrateCommand(a, i),
    pairing: (a, i) => (require('./pairing') as typeof Pairing).pairingCommand(a, i),
    admin: (a, i) => (require('./admin') as typeof Admin).adminCommand(a, i),
    schedules: (a, i) => (require('./schedules') as typeof Schedules).schedulesCommand(a, i, deps.pickupWaitMs),
  };
  try {
    const args = parseCliArgs(argv);
    if (args.version) {
      line(io.stdout, `penguin-gateway ${packageVersion()}`);
      return EXIT_OK;
    }
    if (args.command === 'help') {
      io.stdout.write(args.rest[0] !== undefined && COMMAND_HELP[args.rest[0]] ? COMMAND_HELP[args.rest[0]] : USAGE);
      return EXIT_OK;
    }
    if (args.command === undefined) {
      if (args.help) {
        io.stdout.write(USAGE);
        return EXIT_OK;
      }
      throw new UsageError('no command given');
    }
    const run = commands[args.command];
    if (!run) throw new UsageError(`unknown command ${JSON.stringify(args.command)}`);
    if (args.help) {
      io.stdout.write(COMMAND_HELP[args.command]);
      return EXIT_OK;
    }
    return await run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      line(io.stderr, `penguin-gateway: ${e.message}`);
      line(io.stderr);
      io.stderr.write(USAGE);
      return EXIT_USAGE;
    }
    line(io.stderr, `penguin-gateway: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
}
