/**
 * `penguin-gateway doctor`: validates the config (printing every error, exit 1), then checks the data
 * root and its free space, database (SQLite, or PostgreSQL with PENGUIN_DATABASE_URL), admin token, listener, each
 * configured platform token with a real API call, the model
 * of every routed agent with the request the gateway would make, the tool sandbox and the schedule files; prints one
 * ✓ / ✗ / ! / – line per check with what to fix. Exit 0 only when no check failed; platforms that are not
 * configured are reported, not failed. Network checks run in parallel; doctor writes nothing.
 */
import type { CliArgs } from '../args';
import { expectNoMore } from '../args';
import { loadConfigForCli } from '../config';
import { EXIT_FAILED, EXIT_OK, line, type CliIO } from '../io';
import { checkDatabase, checkHome, checkListen, checkSpace } from './local';
import { checkPostgres } from './postgres';
import { checkModels } from './model';
import { checkSandbox } from './sandbox';
import { checkDiscord } from './discord';
import { checkSchedules } from './schedules';
import { checkSlack, checkTelegram } from './platforms';
import { MARKS, type CheckResult } from './types';

export const DEFAULT_DOCTOR_TIMEOUT_MS = 10_000;

export async function doctorCommand(args: CliArgs, io: CliIO): Promise<number> {
  expectNoMore(args);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  const timeoutMs = args.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const database = config.database_url ? checkPostgres(config, timeoutMs) : Promise.resolve(checkDatabase(config));
  const results: CheckResult[] = [
    { name: 'config', status: 'ok', detail: config.config_file ? `${config.config_file} is valid` : 'no config file; running on defaults and the environment' },
    checkHome(config.home),
    checkSpace(config.home),
    ...(await database),
    checkListen(config.listen),
    ...(await Promise.all([
      checkTelegram(config.telegram, timeoutMs),
      checkSlack(config.slack, timeoutMs),
      checkDiscord(config.discord, timeoutMs),
      checkModels(config, io.env, timeoutMs),
      checkSandbox(config, io.env.PATH),
      checkSchedules(config),
    ])).flat(),
  ];
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) {
    line(io.stdout, `${MARKS[r.status]} ${r.name.padEnd(width)}  ${r.detail}`);
    if (r.fix && r.status !== 'ok') line(io.stdout, `  ${' '.repeat(width)}  → ${r.fix}`);
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  const skipped = results.filter((r) => r.status === 'skip').length;
  line(io.stdout);
  if (failed > 0) line(io.stdout, `${failed} check${failed === 1 ? '' : 's'} failed.`);
  else line(io.stdout, `All configured checks passed${skipped > 0 ? ` (${skipped} not configured)` : ''}.`);
  return failed > 0 ? EXIT_FAILED : EXIT_OK;
}
