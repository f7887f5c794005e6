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
 * The flags a start sets (runtime/v8-wasm.ts, runtime/v8-gc.ts), set before any bundle compiles: V8 takes
 * a bundle's code cache only under the flags it was made under, and the build makes them under these.
 */
export function setV8Flags(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--expose-gc');
}

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
