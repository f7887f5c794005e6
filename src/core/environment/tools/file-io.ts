/**
 * File helpers for the file tools: atomic replacement (temp file in the same directory, then rename,
 * keeping the target's mode and writing through symlinks), the files and directories no tool may touch
 * (secret files by name, the host's data root by confinement), and a NUL-byte binary check.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolReach } from '../../interfaces';
import { forbiddenPathMessage } from '../confinement';

/** Files that hold secrets (Vault, Project config): file tools refuse them, since reads and diffs would echo the values. */
export const PROTECTED_FILE_NAMES = ['.vault.toml', '.project_config.toml'] as const;

export function protectedFileMessage(file: string): string | null {
  const base = path.basename(file);
  return (PROTECTED_FILE_NAMES as readonly string[]).includes(base) ? `Refused: ${base} holds secrets and cannot be accessed with file tools.` : null;
}

/** Why a file tool must not touch `file`, or null: a secret file, or a path in a forbidden root. */
export async function refusalFor(file: string, reach: (absPath: string) => Promise<ToolReach>): Promise<string | null> {
  const named = protectedFileMessage(file);
  if (named) return named;
  return (await reach(file)) === 'forbidden' ? forbiddenPathMessage(file) : null;
}

export const looksBinary = (buf: Buffer) => buf.indexOf(0) !== -1;

/** Write `content` to `file` atomically; parents must exist. */
export async function atomicWrite(file: string, content: string): Promise<void> {
  let target = file;
  let mode: number | undefined;
  try {
    target = await fs.realpath(file);
    mode = (await fs.stat(target)).mode & 0o7777;
  } catch {
    // A new file: written where asked, default mode.
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, content, mode === undefined ? {} : { mode });
    if (mode !== undefined) await fs.chmod(tmp, mode);
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Stat that answers null for a missing path. */
export async function statOrNull(file: string) {
  try {
    return await fs.stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}
