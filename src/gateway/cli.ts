#!/usr/bin/env node
/**
 * The `penguin-gateway` executable. It sets the gateway's V8 flags, then runs the gateway bundle that
 * `npm run build` writes beside it (`cli.bundle.js`: ./cli/main.ts and every module a start loads, in one
 * file; scripts/build-server.mjs) through ./bundle-loader.ts. `main(argv)` runs the command line; it runs
 * by itself when this file is the program, and scripts/start.js (`npm start`) calls it. Without a bundle
 * it says to build and exits 1.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { loadBundle } from './bundle-loader';
import type * as CliMain from './cli/main';

/**
 * The flags a start sets (runtime/v8-wasm.ts, runtime/v8-gc.ts, and V8's tier-up below), set before any
 * bundle compiles: V8 takes a bundle's code cache only under the flags it was made under, and the build
 * makes them under these.
 */
export function setV8Flags(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--expose-gc');
  for (const flag of TIER_UP_FLAGS) setFlagsFromString(flag);
}

/**
 * V8 hands a function to its optimizing compiler (TurboFan) once it has run for a while: three interrupt
 * budgets of bytecode (66 KB each), or one for a small function. A start runs one-off code that long
 * (parsing the 21 KB system_config.yaml, building zod schemas, joining paths), and the first TurboFan compile
 * of a process maps ~3.7 MB of the compiler's machine code from the node binary and grows a helper thread's
 * malloc arena: ~5 MB of RSS held for good, for code that never runs again. With an eight times larger
 * budget and no first-tick shortcut nothing is optimized while any set of platforms starts (six times was
 * the least that did it); code that keeps running (a burst of new conversations, long streams) still is,
 * after eight times as long, and the benchmarks of both read as before. test/gateway/process.test.ts
 * starts the gateway under --trace-opt.
 */
const TIER_UP_FLAGS = ['--interrupt-budget=540672', '--max-bytecode-size-for-early-opt=0'];

export function main(argv: string[]): void {
  setV8Flags();
  let cli: typeof CliMain;
  try {
    cli = loadBundle(join(__dirname, 'cli.bundle.js')) as typeof CliMain;
  } catch (e) {
    process.stderr.write(`penguin-gateway: ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  cli.main(argv);
}

if (require.main === module) main(process.argv.slice(2));
