/**
 * `loadBundle(file)`: runs one CommonJS file as a module (its own `require` resolving from its folder,
 * `module`, `exports`, `__filename`, `__dirname`) and returns its exports, like `require` would. The file
 * is read in 64 KiB pieces: one large read would be one large malloc, and freeing it lifts glibc's
 * dynamic mmap threshold to its size, after which the process keeps up to twice that of freed memory
 * (~5 MB for the gateway bundle). The pieces are decoded as Latin-1, so the file must be ASCII (esbuild's
 * default output); anything else is refused with the offset of the first other byte.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { compileFunction } from 'node:vm';

const PIECE = 64 * 1024;

export function loadBundle(file: string): unknown {
  const source = readAscii(file);
  const wrapper = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file }) as (...a: unknown[]) => void;
  const module = { exports: {} as unknown, filename: file };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
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
