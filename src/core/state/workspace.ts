/**
 * Where a Session works (engine.md §0, §6.1): an explicit Workspace must be an existing directory;
 * otherwise a fresh temporary one `agents/<agent>/workspaces/tmp-<8hex>` is created. The Session's
 * scratchpad `agents/<agent>/scratchpad/<sessionId>/` is created on demand.
 */
import { mkdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { randomHex } from '../random-hex';
import { isSessionId } from '../trace/paths';
import { fail, ok, type StateResult } from './errors';

export const TEMP_WORKSPACE_RE = /^tmp-[0-9a-f]{8}$/;

export async function createTempWorkspace(workspacesDir: string): Promise<string> {
  await mkdir(workspacesDir, { recursive: true });
  for (;;) {
    const dir = join(workspacesDir, `tmp-${randomHex(4)}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** The explicit directory (absolute, must exist) or a new temporary Workspace. */
export async function resolveWorkspace(workspacesDir: string, explicit?: string): Promise<StateResult<string>> {
  if (explicit === undefined || explicit.trim() === '') return ok(await createTempWorkspace(workspacesDir));
  const dir = isAbsolute(explicit) ? explicit : resolve(explicit);
  try {
    if ((await stat(dir)).isDirectory()) return ok(dir);
  } catch {
    // reported below
  }
  return fail(dir, 'io', [{ path: '', expected: 'an existing directory to use as the Workspace', found: 'no such directory' }]);
}

export async function ensureSessionScratchpad(scratchpadDir: string, sessionId: string): Promise<string> {
  if (!isSessionId(sessionId)) throw new RangeError(`not a session id: ${JSON.stringify(sessionId)}`);
  const dir = join(scratchpadDir, sessionId);
  await mkdir(dir, { recursive: true });
  return dir;
}
