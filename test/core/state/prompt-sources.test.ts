/**
 * The files a new session's system prompt reads are kept between prompts and watched: an edit to
 * AGENTS.md, a SKILL.md, a new skill, a schedule file (in a schedule folder that did not exist yet, whose
 * watch is not tried at every prompt meanwhile) or the user memory index reaches the next prompt once the
 * watch reports it; after `close()` every prompt reads
 * the files again. Waiting is on the change arriving, never on a fixed delay.
 */
import { link, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAgentState, type AgentState } from '../../../src/core/state';
import { cleanupTempDirs, tempDir, TEST_TOOLS } from './helpers';

afterAll(cleanupTempDirs);

let state: AgentState;
afterEach(() => state?.close());

const promptOf = (s: AgentState) => s.systemPrompt({ sessionId: 'session-2026-12-01-10-00-00-deadbeef', workspaceDir: s.paths.workspacesDir, provider: 'p', modelId: 'm' });

/** The next prompts, until one satisfies `ok` (each prompt awaits the event loop once before the next). */
async function promptWhere(s: AgentState, ok: (prompt: string) => boolean): Promise<string> {
  for (;;) {
    const prompt = await promptOf(s);
    if (ok(prompt)) return prompt;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function freshState(): Promise<AgentState> {
  const home = await tempDir('sources-');
  const r = await loadAgentState({ home, env: {}, defaultBuiltinTools: TEST_TOOLS, builtinSkillsDir: null });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.value;
}

async function writeSkill(s: AgentState, name: string, description: string): Promise<void> {
  await mkdir(join(s.paths.skillsDir, name), { recursive: true });
  await writeFile(join(s.paths.skillsDir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
}

describe('prompt sources', () => {
  it('an edited AGENTS.md reaches the next prompt', async () => {
    state = await freshState();
    await writeFile(state.paths.agentsMd, 'Answer in haiku.\n');
    expect(await promptWhere(state, (p) => p.includes('Answer in haiku.'))).toContain('Answer in haiku.');
    await writeFile(state.paths.agentsMd, 'Answer in limericks.\n');
    const after = await promptWhere(state, (p) => p.includes('Answer in limericks.'));
    expect(after).not.toContain('Answer in haiku.');
  });

  it('an edited SKILL.md, a new skill and a removed skill reach the next prompt', async () => {
    state = await freshState();
    await writeSkill(state, 'brewing', 'Use when someone asks about tea');
    await promptWhere(state, (p) => p.includes('`brewing` — Use when someone asks about tea'));
    await writeSkill(state, 'brewing', 'Use when someone asks about coffee');
    await promptWhere(state, (p) => p.includes('`brewing` — Use when someone asks about coffee'));
    await writeSkill(state, 'knitting', 'Patterns and stitches');
    await promptWhere(state, (p) => p.includes('`knitting` — Patterns and stitches'));
    await rm(join(state.paths.skillsDir, 'brewing'), { recursive: true });
    const after = await promptWhere(state, (p) => !p.includes('`brewing`'));
    expect(after).toContain('`knitting` — Patterns and stitches');
  });

  it('a schedule file in a schedule folder created after the first prompt reaches the next prompt', async () => {
    state = await freshState();
    expect(await promptOf(state)).not.toContain('- standup');
    await mkdir(state.paths.scheduleDir, { recursive: true });
    await writeFile(join(state.paths.scheduleDir, 'standup.toml'), 'start_at = "2026-12-01T09:00:00"\nperiod = "1d"\n');
    await promptWhere(state, (p) => p.includes('- standup'));
    await writeFile(join(state.paths.scheduleDir, 'retro.toml'), 'start_at = "2026-12-01T09:00:00"\nperiod = "7d"\n');
    await promptWhere(state, (p) => p.includes('- retro'));
  });

  it('a schedule folder that is not there is not watched again at every prompt', async () => {
    state = await freshState();
    await promptOf(state);
    // The module object itself (an `import * as` is a copy of its properties).
    const watch = jest.spyOn(require('node:fs') as typeof import('node:fs'), 'watch');
    try {
      for (let i = 0; i < 5; i++) await promptOf(state);
      expect(watch).not.toHaveBeenCalled();
    } finally {
      watch.mockRestore();
    }
  });

  it('a workspace made just now gets the memory its resolved path would give, linked parents included', async () => {
    state = await freshState();
    const prompt = (workspaceDir: string, fresh: boolean) =>
      state.systemPrompt({ sessionId: 'session-2026-12-01-10-00-00-deadbeef', workspaceDir, ...(fresh ? { freshWorkspace: true } : {}), provider: 'p', modelId: 'm' });
    const temp = join(state.paths.workspacesDir, 'tmp-0123abcd');
    await mkdir(temp, { recursive: true });
    const persistent = join(await tempDir('project-'), 'repo');
    await mkdir(persistent);
    const linked = join(await tempDir('link-'), 'workspaces');
    await symlink(state.paths.workspacesDir, linked);
    const viaLink = join(linked, 'tmp-0123abcd');
    for (const ws of [temp, persistent, viaLink]) expect(await prompt(ws, true)).toBe(await prompt(ws, false));
    expect(await prompt(temp, true)).not.toContain('## Workspace memory');
    expect(await prompt(viaLink, true)).not.toContain('## Workspace memory');
    expect(await prompt(persistent, true)).toContain('## Workspace memory');
  });

  it('an edited user memory index reaches the next prompt', async () => {
    state = await freshState();
    await promptOf(state);
    await writeFile(join(state.paths.memoryDir, 'user', 'MEMORY.md'), '- [Tea](tea.md) — prefers green tea\n');
    await promptWhere(state, (p) => p.includes('prefers green tea'));
  });

  it('a prompt with nothing changed reads no file again', async () => {
    state = await freshState();
    await writeFile(state.paths.agentsMd, 'Kept.\n');
    await promptWhere(state, (p) => p.includes('Kept.'));
    // A write through a hard link in another folder changes the file without an event in the agent's folder:
    // a prompt that re-read AGENTS.md would show it, the kept copy does not.
    const elsewhere = join(await tempDir('link-'), 'AGENTS.md');
    await link(state.paths.agentsMd, elsewhere);
    await writeFile(elsewhere, 'Changed behind the watch.\n');
    expect(await promptOf(state)).toContain('Kept.');
    state.close();
    expect(await promptOf(state)).toContain('Changed behind the watch.');
  });

  it('after close(), each prompt reads the files as they are', async () => {
    state = await freshState();
    await promptOf(state);
    state.close();
    await writeFile(state.paths.agentsMd, 'Closed and still current.\n');
    expect(await promptOf(state)).toContain('Closed and still current.');
  });
});
