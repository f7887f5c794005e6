/**
 * `loadBundle(file)`: `require(file)` for the gateway's bundles (cli.bundle.js and vendor/*.js, built by
 * scripts/build-server.mjs): the file runs once as a CommonJS module, is kept in `require.cache` under its
 * path, and later calls return its exports. It is read in 64 KiB pieces: one large read is one large
 * malloc, and freeing it lifts glibc's dynamic mmap threshold to its size, after which the process keeps
 * up to twice that of freed memory (~5 MB for the gateway bundle). The pieces are decoded as Latin-1, so
 * the file must be ASCII (esbuild's output); anything else is refused with the offset of the first other byte.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import Module from 'node:module';
import { dirname, resolve } from 'node:path';
import { compileFunction } from 'node:vm';

const PIECE = 64 * 1024;

export function loadBundle(path: string): unknown {
  const file = resolve(path);
  const cached = require.cache[file];
  if (cached) return cached.exports;
  const source = readAscii(file);
  const wrapper = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file }) as (...a: unknown[]) => void;
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

function readAscii(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new Error(`${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): run \`npm run build\``);
  }
  try {
    const buf = Buffer.allocUnsafe(PIECE);
    const parts: string[] = [];
    for (let at = 0, n: number; (n = readSync(fd, buf, 0, PIECE, at)) > 0; at += n) {
      const piece = buf.subarray(0, n);
      if (!isAscii(piece)) throw new Error(`${file}: byte ${at + piece.findIndex((b) => b > 0x7f)} is not ASCII; rebuild it with \`npm run build\``);
      parts.push(piece.toString('latin1'));
    }
    return parts.join('');
  } finally {
    closeSync(fd);
  }
}
