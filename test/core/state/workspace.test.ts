import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempWorkspace, ensureSessionScratchpad, resolveWorkspace, TEMP_WORKSPACE_RE } from '../../../src/core/state/workspace';
import { cleanupTempDirs, tempDir } from './helpers';

afterAll(cleanupTempDirs);

describe('workspaces and scratchpads', () => {
  it('creates temporary workspaces as workspaces/tmp-<8hex>', async () => {
    const dir = join(await tempDir(), 'workspaces');
    const a = await createTempWorkspace(dir);
    const b = await createTempWorkspace(dir);
    expect(a).not.toBe(b);
    expect((await readdir(dir)).every((n) => TEMP_WORKSPACE_RE.test(n))).toBe(true);
    expect((await stat(a)).isDirectory()).toBe(true);
  });

  it('uses an explicit directory only when it exists', async () => {
    const base = await tempDir();
    expect(await resolveWorkspace(join(base, 'workspaces'), base)).toEqual({ ok: true, value: base });
    const missing = await resolveWorkspace(join(base, 'workspaces'), join(base, 'nope'));
    expect(!missing.ok && missing.error.message).toBe(`${join(base, 'nope')}: (file): expected an existing directory to use as the Workspace, found no such directory`);
    const temp = await resolveWorkspace(join(base, 'workspaces'));
    expect(temp.ok && TEMP_WORKSPACE_RE.test(temp.value.split('/').pop()!)).toBe(true);
  });

  it('creates a session scratchpad on demand', async () => {
    const dir = join(await tempDir(), 'scratchpad');
    const p = await ensureSessionScratchpad(dir, 'session-2026-11-30-10-00-00-deadbeef');
    expect(p).toBe(join(dir, 'session-2026-11-30-10-00-00-deadbeef'));
    expect((await stat(p)).isDirectory()).toBe(true);
    await expect(ensureSessionScratchpad(dir, '../escape')).rejects.toThrow(RangeError);
  });
});
