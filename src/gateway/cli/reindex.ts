/**
 * `penguin-gateway reindex`: rebuilds the index in gateway.db from the files under PENGUIN_HOME (the traces
 * and the gateway journal; running it twice gives the same index) and prints what it found. Unreadable
 * traces or journal lines are listed as warnings; the command still succeeds.
 */
import { reindexFromFiles } from '../store';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli, withStore } from './config';
import { EXIT_FAILED, EXIT_OK, line, type CliIO } from './io';

export async function reindexCommand(args: CliArgs, io: CliIO): Promise<number> {
  expectNoMore(args);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  return withStore(config, io, async ({ index }) => {
    const r = await reindexFromFiles(index, { home: config.home });
    const sub = r.subagentSessions > 0 ? ` (${r.subagentSessions} of them subagent sessions)` : '';
    const journal = r.journalEntries > 0 ? `, ${r.journalEntries} journal entr${r.journalEntries === 1 ? 'y' : 'ies'}` : '';
    line(io.stdout, `Reindexed ${config.home}: ${r.sessions} session${r.sessions === 1 ? '' : 's'}${sub}, ${r.usageRows} usage row${r.usageRows === 1 ? '' : 's'}${journal}.`);
    if (r.problems.length > 0) {
      line(io.stdout, `${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} (those records were skipped):`);
      for (const p of r.problems) line(io.stdout, `  ! ${p.message}`);
    }
    return EXIT_OK;
  }, { rebuild: false });
}
