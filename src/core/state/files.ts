/**
 * Small filesystem helpers for state files: read-if-present, and atomic replace (write a sibling temp file,
 * then rename) so a crash never leaves a half-written config; secret files get mode 0600 on every write.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** File content, or undefined when it does not exist (other errors propagate). */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export const SECRET_MODE = 0o600;

/** Replace `path` atomically; `mode` is applied to the new file (use SECRET_MODE for credentials). */
export async function atomicWrite(path: string, data: string, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, data, { encoding: 'utf8', mode: mode ?? 0o644 });
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Create a file only when it is absent (never touches existing content). */
export async function writeIfAbsent(path: string, data: string, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, data, { encoding: 'utf8', flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
