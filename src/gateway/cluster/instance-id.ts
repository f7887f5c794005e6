/**
 * This gateway instance's id: PENGUIN_INSTANCE_ID when set (a stable name survives restarts, so a quick
 * restart keeps its conversations), else host name, process id and a random suffix, unique per start.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export function instanceIdOf(configured: string | undefined): string {
  if (configured) return configured;
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'gateway';
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
