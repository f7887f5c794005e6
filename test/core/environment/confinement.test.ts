/**
 * Tool confinement on real files: a data root laid out as the gateway writes it (traces, gateway.db, the
 * vault, other agents) is refused by every file tool whatever the path spelling (relative climb, absolute,
 * a symlink in the workspace, `~`), the session's own workspace, scratchpad and agent memory stay usable,
 * paths elsewhere are `outside` (asked about, never decided by a mode), and the approval modes honour it.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PathConfinement } from '../../../src/core/environment/confinement';
import { decideApproval } from '../../../src/core/state/approval';
import { call, makeEnv, removeTempDirs, tempDir, toolCallMsg } from './helpers';

afterAll(removeTempDirs);

/** `<root>/p/agents/a/{workspaces/tmp-1, scratchpad/s1, agent_state/memory, traces}` plus `<root>/gateway.db`. */
function dataRoot() {
  const root = tempDir('penv-root-');
  const agent = path.join(root, 'p', 'agents', 'a');
  const workspace = path.join(agent, 'workspaces', 'tmp-1');
  const scratchpad = path.join(agent, 'scratchpad', 's1');
  const memory = path.join(agent, 'agent_state', 'memory');
  for (const d of [workspace, scratchpad, memory, path.join(agent, 'traces', '2026-12-01'), path.join(root, 'p', 'agents', 'other', 'agent_state')]) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(root, 'gateway.db'), 'SQLITE');
  writeFileSync(path.join(agent, 'traces', '2026-12-01', 's1_001.jsonl'), '{"secret":"trace"}\n');
  writeFileSync(path.join(agent, 'agent_state', 'system_config.yaml'), 'system_prompt: x\n');
  writeFileSync(path.join(root, 'p', 'agents', 'other', 'agent_state', 'AGENTS.md'), 'OTHER-AGENT-NOTES\n');
  return { root, agent, workspace, scratchpad, memory };
}

describe('PathConfinement', () => {
  test('the deepest root decides; forbidden wins a tie; symlinks are resolved', async () => {
    const d = dataRoot();
    const c = new PathConfinement({ roots: [d.workspace, d.scratchpad, d.memory], forbidden: [d.root] });
    expect(await c.reach(path.join(d.workspace, 'a.txt'))).toBe('inside');
    expect(await c.reach(path.join(d.workspace, 'new', 'deep', 'file'))).toBe('inside');
    expect(await c.reach(path.join(d.scratchpad, 'attachment.png'))).toBe('inside');
    expect(await c.reach(path.join(d.memory, 'user', 'MEMORY.md'))).toBe('inside');
    expect(await c.reach(path.join(d.root, 'gateway.db'))).toBe('forbidden');
    expect(await c.reach(path.join(d.agent, 'agent_state', 'system_config.yaml'))).toBe('forbidden');
    expect(await c.reach('/etc/hostname')).toBe('outside');
    symlinkSync(d.root, path.join(d.workspace, 'escape'));
    expect(await c.reach(path.join(d.workspace, 'escape', 'gateway.db'))).toBe('forbidden');
    symlinkSync('/etc', path.join(d.workspace, 'etc'));
    expect(await c.reach(path.join(d.workspace, 'etc', 'hostname'))).toBe('outside');
    const same = new PathConfinement({ roots: [d.root], forbidden: [d.root] });
    expect(await same.reach(path.join(d.root, 'gateway.db'))).toBe('forbidden');
  });

  test('a workspace that contains the data root still cannot reach into it', async () => {
    const parent = tempDir('penv-fixed-');
    const root = path.join(parent, '.penguin', 'data');
    const scratchpad = path.join(root, 'p', 'agents', 'a', 'scratchpad', 's');
    mkdirSync(scratchpad, { recursive: true });
    const c = new PathConfinement({ roots: [parent, scratchpad], forbidden: [root] });
    expect(await c.reach(path.join(parent, 'src', 'index.ts'))).toBe('inside');
    expect(await c.reach(path.join(root, 'gateway.db'))).toBe('forbidden');
    expect(await c.reach(path.join(scratchpad, 'file.txt'))).toBe('inside');
  });
});

describe('file tools under confinement', () => {
  const d = dataRoot();
  const { env } = makeEnv({
    workspace: d.workspace,
    scratchpad: d.scratchpad,
    confinement: ({ workspace, scratchpad }) => ({ roots: [workspace, scratchpad!, d.memory], forbidden: [d.root] }),
  });
  afterAll(() => env.dispose());
  symlinkSync(d.root, path.join(d.workspace, 'root-link'));

  test.each([
    ['a relative climb', '../../../../gateway.db'],
    ['an absolute path', path.join(d.agent, 'traces', '2026-12-01', 's1_001.jsonl')],
    ['a symlink inside the workspace', 'root-link/gateway.db'],
    ["another agent's state", path.join(d.root, 'p', 'agents', 'other', 'agent_state', 'AGENTS.md')],
  ])('read_file refuses the data root by %s', async (_what, file_path) => {
    const { out } = await call(env, 'read_file', { file_path });
    expect(out.stop_reason).toBe('failed');
    expect(out.output).toMatch(/protected data directory/);
    expect(out.output).not.toMatch(/SQLITE|secret|OTHER-AGENT-NOTES/);
  });

  test('write_file, edit_file, read_image and exec_command workdir refuse it too', async () => {
    const target = path.join(d.agent, 'agent_state', 'system_config.yaml');
    for (const [tool, args] of [
      ['write_file', { file_path: target, content: 'mcpServers: []' }],
      ['edit_file', { file_path: target, old_string: 'x', new_string: 'y' }],
      ['read_image', { source: path.join(d.root, 'gateway.db') }],
      ['exec_command', { description: 'list', cmd: 'ls', workdir: d.root }],
    ] as const) {
      const { out } = await call(env, tool, args);
      expect(out.stop_reason).toBe('failed');
      expect(out.output).toMatch(/protected data directory/);
    }
  });

  test("the session's workspace, scratchpad and the agent's memory stay usable", async () => {
    expect((await call(env, 'write_file', { file_path: 'notes.md', content: 'hi' })).out.stop_reason).toBe('completed');
    writeFileSync(path.join(d.scratchpad, 'upload.txt'), 'attached');
    expect((await call(env, 'read_file', { file_path: path.join(d.scratchpad, 'upload.txt') })).out.output).toContain('attached');
    expect((await call(env, 'write_file', { file_path: path.join(d.memory, 'user', 'MEMORY.md'), content: '- [x](x.md)' })).out.stop_reason).toBe('completed');
  });

  test('toolReach classifies calls by their path arguments', async () => {
    const reach = (name: string, args: unknown) => env.toolReach(toolCallMsg(name, args));
    expect(await reach('read_file', { file_path: 'notes.md' })).toBe('inside');
    expect(await reach('read_file', { file_path: '../../../../../../../etc/hostname' })).toBe('outside');
    expect(await reach('read_file', { file_path: '/etc/hostname' })).toBe('outside');
    expect(await reach('read_file', { file_path: 'root-link/gateway.db' })).toBe('forbidden');
    expect(await reach('read_image', { source: 'https://example.com/cat.png' })).toBe('inside');
    expect(await reach('exec_command', { cmd: 'cat /etc/hostname' })).toBe('inside');
    expect(await reach('exec_command', { cmd: 'ls', workdir: '/etc' })).toBe('outside');
    expect(await reach('read_file', '{not json')).toBe('inside');
  });
});

describe('approval modes and reach', () => {
  const readCall = toolCallMsg('read_file', { file_path: '/etc/hostname' });
  const asked: string[] = [];
  const ask = async () => {
    asked.push('asked');
    return 'allow' as const;
  };

  test.each([
    ['read-only', 'ask'],
    ['allow-all', 'ask'],
    ['always-ask', 'ask'],
    ['deny-all', 'deny'],
  ] as const)('a call reaching outside in %s: %s', async (mode, expected) => {
    asked.length = 0;
    const d = await decideApproval(mode, 'r', readCall, ask, undefined, 'outside');
    expect(asked.length > 0 ? 'ask' : d).toBe(expected);
  });

  test('inside, read-only still allows read tools without asking', async () => {
    asked.length = 0;
    expect(await decideApproval('read-only', 'r', readCall, ask, undefined, 'inside')).toBe('allow');
    expect(asked).toHaveLength(0);
  });
});
