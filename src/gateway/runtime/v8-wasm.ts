/**
 * Wasm in the gateway's process runs on V8's baseline compiler (Liftoff) only. The wasm it loads is
 * llhttp, the HTTP parser of Node's fetch (the model SDK's transport) and of the undici package Discord's
 * REST client uses. By default V8 compiles it again with TurboFan on helper threads, which at the first
 * model request holds ~30 MB of compiler memory, leaves the process ~10 MB larger and costs ~0.15 s of CPU,
 * for parsing that is not this process's bottleneck. The flag has to be set before that first compile,
 * from inside (the command line is not ours: `npm start`, the image and systemd start the process).
 */
import { setFlagsFromString } from 'node:v8';

export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}
