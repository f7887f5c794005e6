/**
 * Everything a benchmark leaves running or on disk is registered here: child processes and temp dirs.
 * Owners release their own resources when they are done; `cleanupAll()` (run.ts's finally) releases what
 * is left, and `installExitHooks()` (the CLI only) also does it synchronously on exit, SIGINT and SIGTERM,
 * so an interrupted or failed run leaves no gateway process and no temp dir behind.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function trackDir(path: string): void {
  dirs.add(path);
}

export async function removeDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
  dirs.delete(path);
}

/** Kills what is still running (SIGKILL: the owner had its chance to stop it gracefully) and removes dirs. */
export async function cleanupAll(): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const c of children) {
    if (!alive(c)) continue;
    waits.push(new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 5_000);
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    }));
    c.kill('SIGKILL');
  }
  await Promise.all(waits);
  children.clear();
  for (const d of [...dirs]) await removeDir(d).catch(() => undefined);
}

function cleanupSync(): void {
  for (const c of children) if (alive(c)) c.kill('SIGKILL');
  for (const d of dirs) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      // best effort on the way out
    }
  }
}

let installed = false;
export function installExitHooks(): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupSync);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      cleanupSync();
      process.exit(130);
    });
  }
}
