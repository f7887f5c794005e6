import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  indexForPrompt,
  isTemporaryWorkspace,
  MEMORY_INDEX_MAX_CHARS,
  resolveSessionMemory,
  workspaceMemoryKey,
} from '../../../src/core/state/memory';
import { EMPTY_MEMORY_INDEX_NOTE } from '../../../src/core/state/prompts/section-prompts';
import { cleanupTempDirs, tempDir } from './helpers';

afterAll(cleanupTempDirs);

describe('memory scopes', () => {
  it('keys a workspace by safe basename and 8 hex of sha256(realpath)', () => {
    const hash = createHash('sha256').update('/home/dev/my-app').digest('hex').slice(0, 8);
    expect(workspaceMemoryKey('/home/dev/my-app')).toBe(`my-app-${hash}`);
    expect(workspaceMemoryKey('/srv/My Project (v2)')).toMatch(/^my-project-v2-[0-9a-f]{8}$/);
    expect(workspaceMemoryKey('/')).toMatch(/^workspace-[0-9a-f]{8}$/);
  });

  it('creates the user scope always and a workspace scope only for persistent workspaces', async () => {
    const home = await tempDir();
    const agents = join(home, 'p', 'agents');
    const memoryDir = join(agents, 'a', 'agent_state', 'memory');
    const tmpWs = join(agents, 'a', 'workspaces', 'tmp-0123abcd');
    await mkdir(tmpWs, { recursive: true });
    expect(await isTemporaryWorkspace(agents, tmpWs)).toBe(true);
    const inTemp = await resolveSessionMemory(memoryDir, agents, tmpWs);
    expect(inTemp).toEqual({ userDir: join(memoryDir, 'user'), userIndex: '' });
    expect(await readFile(join(memoryDir, 'user', 'MEMORY.md'), 'utf8')).toBe('');

    const project = join(home, 'code', 'my-app');
    await mkdir(project, { recursive: true });
    const link = join(home, 'link');
    await symlink(project, link);
    expect(await isTemporaryWorkspace(agents, project)).toBe(false);
    await writeFile(join(memoryDir, 'user', 'MEMORY.md'), '- [A](a.md) — a\n');
    const real = await realpath(project);
    const viaLink = await resolveSessionMemory(memoryDir, agents, link);
    expect(viaLink.userIndex).toBe('- [A](a.md) — a\n');
    expect(viaLink.workspace).toEqual({ key: workspaceMemoryKey(real), dir: join(memoryDir, workspaceMemoryKey(real)), index: '' });
    expect(await readFile(join(viaLink.workspace!.dir, '.workspace'), 'utf8')).toBe(`${real}\n`);
    // The same directory by its real path lands in the same scope.
    expect((await resolveSessionMemory(memoryDir, agents, project)).workspace?.key).toBe(viaLink.workspace?.key);
  });
});

describe('index injection', () => {
  it('shows the empty note for a blank index', () => {
    expect(indexForPrompt('  \n')).toBe(EMPTY_MEMORY_INDEX_NOTE);
  });

  it('keeps a small index as it is', () => {
    expect(indexForPrompt('- [A](a.md) — a\n')).toBe('- [A](a.md) — a');
  });

  it('caps at 200 lines', () => {
    const lines = Array.from({ length: 250 }, (_, i) => `- [T${i}](t${i}.md) — hook`);
    const out = indexForPrompt(lines.join('\n'));
    const shown = out.split('\n');
    expect(shown).toHaveLength(201);
    expect(shown[199]).toBe('- [T199](t199.md) — hook');
    expect(shown[200]).toBe('(index cut: 200 of 250 lines shown; open MEMORY.md for the rest)');
  });

  it('caps at 25000 characters on a line boundary', () => {
    const line = `- ${'x'.repeat(998)}`;
    const out = indexForPrompt(Array.from({ length: 40 }, () => line).join('\n'));
    const [kept, note] = [out.slice(0, out.lastIndexOf('\n')), out.slice(out.lastIndexOf('\n') + 1)];
    expect(kept.length).toBeLessThanOrEqual(MEMORY_INDEX_MAX_CHARS);
    expect(kept.split('\n').every((l) => l === line)).toBe(true);
    expect(note).toBe('(index cut: 24 of 40 lines shown; open MEMORY.md for the rest)');
    const one = indexForPrompt('y'.repeat(30000));
    expect(one).toBe(`${'y'.repeat(MEMORY_INDEX_MAX_CHARS)}\n(index cut: first 25000 characters shown; open MEMORY.md for the rest)`);
  });
});
