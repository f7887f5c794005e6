/**
 * The command line against the real process: `main(argv)` runs it with the process's streams and
 * environment and leaves the exit code in `process.exitCode` (so buffered output is flushed first).
 * This module is the entry of the gateway bundle (scripts/build-server.mjs); ../cli.ts, the executable,
 * loads that bundle and calls `main`.
 */
import { runCli } from './run';

export function main(argv: string[]): void {
  runCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), stdin: process.stdin }).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`penguin-gateway: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
