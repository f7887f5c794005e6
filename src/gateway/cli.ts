#!/usr/bin/env node
/**
 * The `penguin-gateway` executable: `main(argv)` runs the command line against the real process streams
 * and environment and leaves the exit code in `process.exitCode` (so buffered output is flushed first).
 * It runs by itself when this file is the program; scripts/start.js (`npm start`) calls `main`.
 * Everything else lives in ./cli/ (import `./cli/index`: a bare `./cli` resolves to this file).
 */
import { runCli } from './cli/run';

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

if (require.main === module) main(process.argv.slice(2));
