#!/usr/bin/env node
/**
 * The `penguin-gateway` executable: runs the command line against the real process streams and
 * environment and leaves the exit code in `process.exitCode` (so buffered output is flushed first).
 * Everything else lives in ./cli/ (import `./cli/index`: a bare `./cli` resolves to this file, which is
 * why it only acts when run as the program).
 */
import { runCli } from './cli/run';

if (require.main === module) {
  runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), stdin: process.stdin }).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`penguin-gateway: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
