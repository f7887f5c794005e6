/**
 * `randomHex(n)`: n bytes from the system's CSPRNG as 2n hex digits, for ids (sessions, tasks, temporary
 * Workspaces). Bytes come from a pool filled 4 KiB at a time, each byte handed out once: a `randomBytes`
 * call per id costs ~10 µs, a few of which every new conversation paid (node's own randomUUID pools the
 * same way).
 */
import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_SIZE) throw new RangeError(`randomHex: bytes must be an integer from 1 to ${POOL_SIZE}, got ${bytes}`);
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return out;
}
