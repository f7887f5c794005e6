/**
 * `penguin-gateway reindex`: rebuilds the session and usage index in gateway.db from the trace files
 * under PENGUIN_HOME (traces are the truth; running it twice gives the same index) and prints what it
 * found. Unreadable traces are listed as warnings; the command still succeeds.
 */
import { reindexFromTraces } from '../store';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli, withStore } from './config';
import { EXIT_FAILED, EXIT_OK, line, type CliIO } from './io';

export async function reindexCommand(args: CliArgs, io: CliIO): Promise<number> {
  expectNoMore(args);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  return withStore(config, io, async (store) => {
    const r = await reindexFromTraces(store, { home: config.home });
    const sub = r.subagentSessions > 0 ? ` (${r.subagentSessions} of them subagent sessions)` : '';
    line(io.stdout, `Reindexed ${config.home}: ${r.sessions} session${r.sessions === 1 ? '' : 's'}${sub}, ${r.usageRows} usage row${r.usageRows === 1 ? '' : 's'}.`);
    if (r.problems.length > 0) {
      line(io.stdout, `${r.problems.length} trace problem${r.problems.length === 1 ? '' : 's'} (those records were skipped):`);
      for (const p of r.problems) line(io.stdout, `  ! ${p.message}`);
    }
    return EXIT_OK;
  });
}
