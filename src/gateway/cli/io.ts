/**
 * What every CLI command gets and returns: `(args, io) => Promise<exitCode>`. Commands write only to
 * `io.stdout`/`io.stderr` and read only `io.env`/`io.cwd`, so tests call them directly. Exit codes:
 * 0 done, 1 failed (bad config, failed check, refused operation), 2 bad command-line arguments.
 */
import type { TextOut } from '../admin/token';

export interface CliIO {
  stdout: TextOut;
  stderr: TextOut;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Standard input, for commands that read a secret (`admin set-password`); absent = nothing to read. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A bad command line: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function line(out: TextOut, s = ''): void {
  out.write(`${s}\n`);
}
