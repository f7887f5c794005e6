/**
 * Environment assembly and the executeTool boundary: tool list and order, forModel, call_description,
 * permissions, unknown tools and bad arguments answered as failed outputs (never exceptions), and the
 * session scratchpad made at the first tool call.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ToolDefinitionConfig } from '../../../src/core/interfaces';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { call, makeEnv, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);
const { env } = makeEnv();
afterAll(() => env.dispose());

describe('tool list', () => {
  test('the defaults in order, read_image for vision models (default)', async () => {
    const tools = await env.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'read_file', 'edit_file', 'write_file', 'exec_command', 'input_command', 'kill_command',
      'run_subagent', 'input_subagent', 'kill_subagent', 'read_image',
    ]);
    for (const t of tools) {
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.parameters).toMatchObject({ type: 'object', properties: expect.any(Object), required: expect.any(Array) });
    }
  });

  test('text-only models get describe_image instead', async () => {
    const { env: textEnv } = makeEnv({ vision: false });
    const names = (await textEnv.listTools()).map((t) => t.name);
    expect(names).toContain('describe_image');
    expect(names).not.toContain('read_image');
    await textEnv.dispose();
  });

  test('call_description: false removes the description parameter and makes it optional', async () => {
    const tools = DEFAULT_BUILTIN_TOOLS.map((t) => (t.name === 'exec_command' ? { ...t, call_description: false } : t));
    const { env: e } = makeEnv({ tools });
    const exec = (await e.listTools()).find((t) => t.name === 'exec_command')!;
    expect(Object.keys(exec.parameters!.properties as object)).not.toContain('description');
    expect(exec.parameters!.required).toEqual(['cmd']);
    const { out } = await call(e, 'exec_command', { cmd: 'echo ok' });
    expect(out).toMatchObject({ output: 'ok\n', stop_reason: 'completed' });
    await e.dispose();
  });

  test('replacement definitions are used as given; unknown names and duplicates are skipped with a warning', async () => {
    const warnings: string[] = [];
    const custom: ToolDefinitionConfig[] = [
      { name: 'write_file', description: 'custom writer', parameters: { type: 'object', properties: { file_path: {}, content: {} }, required: ['file_path', 'content'] }, permission: 'r' },
      { name: 'teleport', description: 'no such tool' },
      { name: 'write_file', description: 'again' },
    ];
    const { env: e } = makeEnv({ tools: custom, warn: (m) => warnings.push(m) });
    expect(await e.listTools()).toEqual([{ name: 'write_file', description: 'custom writer', parameters: custom[0].parameters }]);
    expect(e.toolPermission('write_file')).toBe('r');
    expect(e.toolPermission('exec_command')).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect((await call(e, 'exec_command', { cmd: 'true' })).out.output).toBe('Unknown tool: exec_command');
    await e.dispose();
  });

  test('one definitions list is assembled once for all its Environments; each runs its own commands', async () => {
    const warnings: string[] = [];
    const custom: ToolDefinitionConfig[] = [...DEFAULT_BUILTIN_TOOLS, { name: 'teleport', description: 'no such tool' }];
    const { env: a } = makeEnv({ tools: custom, warn: (m) => warnings.push(m) });
    const { env: b } = makeEnv({ tools: custom, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual(['built-in tool "teleport" skipped: no such tool']);
    expect((await b.listTools()).map((t) => t.name)).toEqual((await a.listTools()).map((t) => t.name));
    const started = await call(a, 'exec_command', { description: 'd', cmd: 'sleep 30', run_in_background: true });
    const id = /proc-[0-9a-f]{8}/.exec(started.out.output)?.[0];
    expect(id).toBeDefined();
    expect((await call(b, 'kill_command', { description: 'stop', process_id: id })).out.output).toMatch(/unknown|no process/i);
    expect((await call(a, 'kill_command', { description: 'stop', process_id: id })).out.output).toContain(`[killed process ${id}]`);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  test('permissions come from the definitions', () => {
    expect(env.toolPermission('read_file')).toBe('r');
    expect(env.toolPermission('exec_command')).toBe('rw');
    expect(env.toolPermission('read_image')).toBe('r');
    expect(env.toolPermission('nope')).toBeUndefined();
  });

  test('connect yields nothing without MCP servers', async () => {
    const events = [];
    for await (const m of env.connect!()) events.push(m);
    expect(events).toEqual([]);
  });
});

describe('executeTool boundary', () => {
  test('an unknown tool fails with its name', async () => {
    const { out } = await call(env, 'make_coffee', {});
    expect(out).toMatchObject({ output: 'Unknown tool: make_coffee', stop_reason: 'failed' });
  });

  test('arguments that are not JSON, or not an object, are explained', async () => {
    const bad = await call(env, 'read_file', '{"file_path": ');
    expect(bad.out.stop_reason).toBe('failed');
    expect(bad.out.output).toMatch(/^Invalid arguments for read_file: not valid JSON/);
    const arr = await call(env, 'read_file', '["a"]');
    expect(arr.out.output).toBe('Invalid arguments for read_file: expected a JSON object, got an array.');
  });

  test('missing, extra and wrong-typed arguments are all named', async () => {
    const { out } = await call(env, 'edit_file', { file_path: 3, old_string: 'a', replace_all: 'yes', colour: 'red' });
    expect(out.stop_reason).toBe('failed');
    expect(out.output).toBe([
      'Invalid arguments for edit_file:',
      '- missing required argument "new_string"',
      '- "file_path" must be a string (got number)',
      '- "replace_all" must be a boolean (got string)',
      '- unexpected argument "colour"',
      'Expected parameters: file_path (required), old_string (required), new_string (required), replace_all.',
    ].join('\n'));
  });

  test('a required description is enforced; integers must be integers; enums are checked', async () => {
    const noDesc = await call(env, 'exec_command', { cmd: 'true' });
    expect(noDesc.out.output).toContain('missing required argument "description"');
    const frac = await call(env, 'read_file', { file_path: 'x', limit: 1.5 });
    expect(frac.out.output).toContain('"limit" must be an integer');
    const level = await call(env, 'run_subagent', { description: 'd', prompt: 'p', thinking_level: 'none' });
    expect(level.out.stop_reason).toBe('failed');
    expect(level.out.output).toContain('"thinking_level"');
  });

  test('empty arguments mean {}; null values count as absent', async () => {
    const empty = await call(env, 'read_file', '');
    expect(empty.out.output).toContain('missing required argument "file_path"');
    const nul = await call(env, 'exec_command', { description: 'd', cmd: 'echo n', workdir: null, yield_time_ms: null });
    expect(nul.out).toMatchObject({ output: 'n\n', stop_reason: 'completed' });
  });
});

describe('session scratchpad', () => {
  test('is made at the first tool call, whatever the tool, and not before', async () => {
    const scratchpad = path.join(tempDir('penv-lazy-'), 'scratchpad', 'session-2026-12-04-10-00-00-0badcafe');
    const made = makeEnv({ scratchpad });
    await made.env.listTools();
    expect(existsSync(scratchpad)).toBe(false);
    writeFileSync(path.join(made.workspace, 'notes.txt'), 'hello');
    const { out } = await call(made.env, 'read_file', { file_path: 'notes.txt' });
    await made.env.dispose();
    expect(out).toMatchObject({ stop_reason: 'completed' });
    expect(existsSync(scratchpad)).toBe(true);
  });

  test('that cannot be made fails the call with the reason, and is tried again at the next call', async () => {
    const root = tempDir('penv-lazy-');
    const blocker = path.join(root, 'scratchpad');
    writeFileSync(blocker, 'a file where the scratchpad root should be');
    const scratchpad = path.join(blocker, 'session-2026-12-04-10-00-00-0badcafe');
    const made = makeEnv({ scratchpad });
    const first = await call(made.env, 'read_file', { file_path: path.join(made.workspace, 'x') });
    expect(first.out.stop_reason).toBe('failed');
    expect(first.out.output).toContain(`Cannot create the session scratchpad ${scratchpad}: `);
    expect(first.out.output).toMatch(/ENOTDIR|EEXIST/);
    rmSync(blocker);
    writeFileSync(path.join(made.workspace, 'x'), 'hello');
    const second = await call(made.env, 'read_file', { file_path: path.join(made.workspace, 'x') });
    await made.env.dispose();
    expect(second.out).toMatchObject({ stop_reason: 'completed' });
    expect(existsSync(scratchpad)).toBe(true);
  });
});
