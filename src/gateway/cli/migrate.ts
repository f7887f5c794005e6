/**
 * `penguin-gateway migrate`: brings the index (`<PENGUIN_HOME>/gateway.db`, or the PostgreSQL database of
 * PENGUIN_DATABASE_URL) to this release's schema (creating it if needed) and prints the versions from → to. A database written by a newer release is refused (exit 1).
 */
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli, withStore } from './config';
import { EXIT_FAILED, EXIT_OK, line, type CliIO } from './io';

export async function migrateCommand(args: CliArgs, io: CliIO): Promise<number> {
  expectNoMore(args);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  return withStore(config, io, async ({ index }) => {
    const m = index.migration;
    if (m.applied.length === 0) line(io.stdout, `${index.location}: schema version ${m.to}, up to date`);
    else line(io.stdout, `${index.location}: migrated schema version ${m.from} → ${m.to} (applied ${m.applied.join(', ')})`);
    return EXIT_OK;
  });
}
