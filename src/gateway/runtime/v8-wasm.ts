/**
 * Wasm in the gateway's process runs on V8's baseline compiler (Liftoff) only: the wasm it may load is llhttp,
 * the parser of Node's fetch and of undici, which carry only rare calls (an upload, a file download, a redirect,
 * Socket Mode's connection). TurboFan's second compile of it would hold ~30 MB of compiler memory at its first
 * use, leave the process ~10 MB larger and cost ~0.15 s of CPU. Set before that first compile, from inside
 * (the command line is not ours: `npm start`, the image and systemd start the process).
 */
import { setFlagsFromString } from 'node:v8';

export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}
