/**
 * Process-group signalling for command sessions. Liveness ignores zombies: an orphaned child that died
 * stays a zombie until init reaps it (which some container inits do only now and then), and waiting for
 * those would turn every kill into a full grace period. Linux reads /proc; elsewhere `kill(-pgid, 0)`.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Signal every process of a group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function procMembersAlive(pgid: number): boolean | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command: state ppid pgrp …
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) === pgid && rest[0] !== 'Z' && rest[0] !== 'X') return true;
  }
  return false;
}

/** Whether any non-zombie process of the group is left. */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  return procMembersAlive(pgid) ?? true;
}
