/**
 * `loadBundle(file)`: `require(file)` for the gateway's bundles (cli.bundle.js and vendor/*.js, built by
 * scripts/build-server.mjs): the file runs once as a CommonJS module kept in `require.cache` under its path,
 * compiled from V8's code cache beside it (`<file>.v8cache`, written by `makeCodeCache` at build time) when
 * V8 takes it. The file is read in pieces and must be ASCII (esbuild's output; `readAscii` says why);
 * `bundleLoads()` says how each load of the process compiled.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import Module from 'node:module';
import { dirname, resolve } from 'node:path';
import { Script } from 'node:vm';

const PIECE = 64 * 1024;
// CommonJS's wrapper, on a line of its own (the script starts a line early) so that errors and stack
// traces give the file's own lines and columns.
const HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const TAIL = '\n})';

/*
 * V8's code cache. Compiling a bundle is most of what loading it costs (about half of it for an SDK), so
 * the build runs each bundle once and writes what V8 compiled to `<file>.v8cache` (`makeCodeCache`), and
 * a load hands that to V8 instead of compiling again. V8 checks the cache's V8 version, its flags (every
 * flag not at its default) and the source's length only, so the file starts with the SHA-256 of the
 * bundle it was made from: a cache of other content is never handed over. A flag the gateway changes while
 * it runs (the young generation's growth factor, runtime/v8-young-generation.ts) is put back for each
 * compile, as the build had it, by the guard its owner registers (`guardEachCompile`).
 */
const HASH_BYTES = 32;

export interface BundleLoad {
  file: string;
  /**
   * `used`: V8 took the compiled code from `<file>.v8cache`; `refused`: V8 refused it (another Node, or
   * other V8 flags, e.g. from NODE_OPTIONS); `stale`: made from other content; `none`: there was none.
   */
  codeCache: 'used' | 'refused' | 'stale' | 'none';
}

const loads: BundleLoad[] = [];
/** The loads of this process, in order. */
export const bundleLoads = (): readonly BundleLoad[] => loads;
export const codeCacheFile = (file: string): string => `${file}.v8cache`;

export function loadBundle(path: string): unknown {
  const file = resolve(path);
  const cached = require.cache[file];
  if (cached) return cached.exports;
  const cache = readCodeCache(file);
  const { source, sha256 } = readAscii(file, cache !== undefined);
  const fresh = cache && cache.length > HASH_BYTES && sha256!.equals(cache.subarray(0, HASH_BYTES)) ? cache.subarray(HASH_BYTES) : undefined;
  const script = compile(file, source, fresh);
  const codeCache = !cache ? 'none' : !fresh ? 'stale' : script.cachedDataRejected ? 'refused' : 'used';
  loads.push({ file, codeCache });
  if (codeCache === 'refused' || codeCache === 'stale') {
    const why = codeCache === 'stale' ? 'was made from another build of it' : 'was made by another Node or under other V8 flags (NODE_OPTIONS)';
    process.stderr.write(`penguin-gateway: ${codeCacheFile(file)} ${why}: compiled without it, which is slower; \`npm run build\` makes it again\n`);
  }
  return run(file, script);
}

/**
 * Runs the bundle, then writes V8's code cache of what compiling and running it compiled beside it. For
 * the build, in a fresh process with the gateway's V8 flags (cli.ts `setV8Flags`).
 */
export function makeCodeCache(path: string): void {
  const file = resolve(path);
  if (require.cache[file]) throw new Error(`${file} is loaded already: its code cache is made where it is first loaded`);
  const { source, sha256 } = readAscii(file, true);
  const script = compile(file, source, undefined);
  run(file, script);
  writeFileSync(codeCacheFile(file), Buffer.concat([sha256!, script.createCachedData()]));
}

/** Each returns what undoes it after the compile. */
const compileGuards = new Set<() => () => void>();

/**
 * `guard` runs before every compile to put a flag the process changed back to what the build had, and
 * what it returns runs after the compile. Returns what removes the guard. (Bundled code gets this module,
 * not a copy of it: build-server.mjs keeps it outside the bundle.)
 */
export function guardEachCompile(guard: () => () => void): () => void {
  compileGuards.add(guard);
  return () => compileGuards.delete(guard);
}

function compile(file: string, source: string, cachedData: Buffer | undefined): Script {
  const undo = [...compileGuards].map((guard) => guard());
  try {
    return new Script(source, { filename: file, lineOffset: -1, cachedData });
  } finally {
    for (const u of undo) u();
  }
}

function run(file: string, script: Script): unknown {
  const wrapper = script.runInThisContext() as (...a: unknown[]) => void;
  // A real module object in require.cache (documented as writable): a second load, or a plain require of
  // the same path, gets these exports instead of running the file again.
  const module = new Module(file);
  module.filename = file;
  require.cache[file] = module;
  try {
    wrapper.call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  } catch (e) {
    delete require.cache[file];
    throw e;
  }
  module.loaded = true;
  return module.exports;
}

/**
 * Bigger than glibc's largest dynamic mmap threshold (32 MiB on 64-bit): a buffer this size is a mapping of
 * its own, given back whole when freed without raising the threshold (as the loader's source pieces avoid
 * it too); only the pages the file fills are ever touched.
 */
const OWN_MAPPING = 32 * 1024 * 1024 + 1;

function readCodeCache(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(codeCacheFile(file), 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafeSlow(Math.max(size, OWN_MAPPING));
    let at = 0;
    for (let n: number; at < size && (n = readSync(fd, buf, at, size - at, at)) > 0; ) at += n;
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * The file as a script, read in 64 KiB pieces: one large read is one large malloc, and freeing it lifts
 * glibc's dynamic mmap threshold to its size, after which the process keeps up to twice that of freed
 * memory (~5 MB for the gateway bundle). The pieces are decoded as Latin-1, so anything but ASCII is
 * refused with the offset of its first other byte. With `hash`, also the file's SHA-256.
 */
function readAscii(file: string, hash: boolean): { source: string; sha256?: Buffer } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new Error(`${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): run \`npm run build\``);
  }
  try {
    const buf = Buffer.allocUnsafe(PIECE);
    const digest = hash ? createHash('sha256') : undefined;
    const parts: string[] = [HEAD];
    for (let at = 0, n: number; (n = readSync(fd, buf, 0, PIECE, at)) > 0; at += n) {
      const piece = buf.subarray(0, n);
      if (!isAscii(piece)) throw new Error(`${file}: byte ${at + piece.findIndex((b) => b > 0x7f)} is not ASCII; rebuild it with \`npm run build\``);
      digest?.update(piece);
      parts.push(piece.toString('latin1'));
    }
    parts.push(TAIL);
    return { source: parts.join(''), sha256: digest?.digest() };
  } finally {
    closeSync(fd);
  }
}
