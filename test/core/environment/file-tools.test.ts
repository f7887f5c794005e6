/**
 * read_file / edit_file / write_file on real files: windows and notes, refusals, CRLF, binary, huge
 * lines and files, unique-match rules, atomic writes and diffs.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { call, makeEnv, removeTempDirs } from './helpers';

afterAll(removeTempDirs);
const { env, workspace } = makeEnv();
afterAll(() => env.dispose());
const file = (name: string, content: string | Buffer) => {
  const p = path.join(workspace, name);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
};

describe('read_file', () => {
  test('numbers lines like cat -n, relative to the Workspace', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const { out } = await call(env, 'read_file', { file_path: 'a.txt' });
    expect(out).toMatchObject({ output: '     1\tone\n     2\ttwo\n     3\tthree\n', stop_reason: 'completed' });
    const abs = await call(env, 'read_file', { file_path: p });
    expect(abs.out.output).toBe(out.output);
  });

  test('offset and limit select a window; a continuation note says where to go on', async () => {
    file('n.txt', Array.from({ length: 10 }, (_, i) => `L${i + 1}`).join('\n'));
    const { out } = await call(env, 'read_file', { file_path: 'n.txt', offset: 3, limit: 2 });
    expect(out.output).toBe('     3\tL3\n     4\tL4\n[showing lines 3-4 of 10; continue with offset=5]');
    const last = await call(env, 'read_file', { file_path: 'n.txt', offset: 9 });
    expect(last.out.output).toBe('     9\tL9\n    10\tL10\n');
  });

  test('an offset past the end fails and says how long the file is', async () => {
    file('short.txt', 'x\n');
    const { out } = await call(env, 'read_file', { file_path: 'short.txt', offset: 5 });
    expect(out.stop_reason).toBe('failed');
    expect(out.output).toContain('(1 lines)');
  });

  test('missing files, directories, binary files and secret files are refused', async () => {
    const missing = await call(env, 'read_file', { file_path: 'nope.txt' });
    expect(missing.out).toMatchObject({ stop_reason: 'failed' });
    expect(missing.out.output).toBe(`File not found: ${path.join(workspace, 'nope.txt')}`);
    mkdirSync(path.join(workspace, 'dir'), { recursive: true });
    expect((await call(env, 'read_file', { file_path: 'dir' })).out.output).toContain('Not a regular file');
    file('bin.dat', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    const bin = await call(env, 'read_file', { file_path: 'bin.dat' });
    expect(bin.out.stop_reason).toBe('failed');
    expect(bin.out.output).toContain('binary');
    for (const secret of ['.vault.toml', 'nested/.project_config.toml']) {
      file(secret, 'KEY = "v"\n');
      const r = await call(env, 'read_file', { file_path: secret });
      expect(r.out.stop_reason).toBe('failed');
      expect(r.out.output).not.toContain('KEY');
    }
  });

  test('CRLF endings are not shown; an empty file says so', async () => {
    file('crlf.txt', 'a\r\nb\r\n');
    expect((await call(env, 'read_file', { file_path: 'crlf.txt' })).out.output).toBe('     1\ta\n     2\tb\n');
    file('empty.txt', '');
    expect((await call(env, 'read_file', { file_path: 'empty.txt' })).out).toMatchObject({ output: '[empty file]', stop_reason: 'completed' });
  });

  test('lines over 2000 chars are cut; the output cap (64000) truncates huge windows', async () => {
    file('long.txt', `${'x'.repeat(5000)}\nshort\n`);
    const { out } = await call(env, 'read_file', { file_path: 'long.txt' });
    const [first, second] = out.output.split('\n');
    expect(first).toBe(`     1\t${'x'.repeat(2000)} [... line cut: 5000 chars]`);
    expect(second).toBe('     2\tshort');
    file('wide.txt', Array.from({ length: 100 }, () => 'y'.repeat(1999)).join('\n'));
    const wide = await call(env, 'read_file', { file_path: 'wide.txt' });
    expect(wide.out.output).toContain('[output truncated: exceeded 64000 chars]');
  });

  test('only the first 8 MiB are scanned', async () => {
    const line = `${'z'.repeat(1023)}\n`;
    file('big.txt', line.repeat(9 * 1024));
    const { out } = await call(env, 'read_file', { file_path: 'big.txt', offset: 8190, limit: 10 });
    expect(out.output).toContain('  8192\t');
    expect(out.output).toContain('larger than the 8 MiB read_file scans');
    const past = await call(env, 'read_file', { file_path: 'big.txt', offset: 9000 });
    expect(past.out.stop_reason).toBe('failed');
    expect(past.out.output).toContain('8 MiB');
  });
});

describe('edit_file', () => {
  test('replaces a unique match atomically and reports a diff', async () => {
    const p = file('e.txt', 'alpha\nbeta\ngamma\n');
    chmodSync(p, 0o640);
    const { out } = await call(env, 'edit_file', { file_path: 'e.txt', old_string: 'beta', new_string: 'BETA' });
    expect(out.stop_reason).toBe('completed');
    expect(out.output).toBe(`Replaced 1 occurrence(s) in ${p}\n--- ${p}\n+++ ${p}\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n`);
    expect(readFileSync(p, 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(readdirSync(workspace).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  test('an ambiguous match fails unless replace_all; replace_all counts every occurrence', async () => {
    const p = file('dup.txt', 'x = 1\nx = 1\nx = 1\n');
    const amb = await call(env, 'edit_file', { file_path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2' });
    expect(amb.out.stop_reason).toBe('failed');
    expect(amb.out.output).toContain('occurs 3 times');
    expect(readFileSync(p, 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
    const all = await call(env, 'edit_file', { file_path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(all.out.output.startsWith(`Replaced 3 occurrence(s) in ${p}`)).toBe(true);
    expect(readFileSync(p, 'utf8')).toBe('x = 2\nx = 2\nx = 2\n');
  });

  test('no match, a missing file, an empty or unchanged old_string are failures that explain themselves', async () => {
    file('m.txt', 'hello\n');
    const cases: [Record<string, unknown>, string][] = [
      [{ file_path: 'm.txt', old_string: 'bye', new_string: 'x' }, 'was not found'],
      [{ file_path: 'none.txt', old_string: 'a', new_string: 'b' }, 'File not found'],
      [{ file_path: 'm.txt', old_string: '', new_string: 'b' }, 'old_string is empty'],
      [{ file_path: 'm.txt', old_string: 'hello', new_string: 'hello' }, 'identical'],
    ];
    for (const [args, text] of cases) {
      const { out } = await call(env, 'edit_file', args);
      expect(out.stop_reason).toBe('failed');
      expect(out.output).toContain(text);
    }
  });

  test('CRLF files match plain-newline strings and stay CRLF', async () => {
    const p = file('win.txt', 'one\r\ntwo\r\nthree\r\n');
    const { out } = await call(env, 'edit_file', { file_path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\n2\nzwei' });
    expect(out.stop_reason).toBe('completed');
    expect(readFileSync(p, 'utf8')).toBe('one\r\n2\r\nzwei\r\nthree\r\n');
  });

  test('replacement text is literal ($& and $1 are not patterns)', async () => {
    const p = file('lit.txt', 'price: X\n');
    await call(env, 'edit_file', { file_path: 'lit.txt', old_string: 'X', new_string: '$& $1 $$' });
    expect(readFileSync(p, 'utf8')).toBe('price: $& $1 $$\n');
  });

  test('edits through a symlink change the target and keep the link', async () => {
    const target = file('real.txt', 'a\n');
    const link = path.join(workspace, 'link.txt');
    symlinkSync(target, link);
    await call(env, 'edit_file', { file_path: 'link.txt', old_string: 'a', new_string: 'b' });
    expect(readFileSync(target, 'utf8')).toBe('b\n');
    expect(readFileSync(link, 'utf8')).toBe('b\n');
  });
});

describe('write_file', () => {
  test('creates parents and reports Created with a diff', async () => {
    const { out } = await call(env, 'write_file', { file_path: 'deep/er/new.txt', content: 'a\nb\n' });
    const p = path.join(workspace, 'deep/er/new.txt');
    expect(out.output).toBe(`Created ${p} (4 bytes)\n--- /dev/null\n+++ ${p}\n@@ -0,0 +1,2 @@\n+a\n+b\n`);
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
  });

  test('overwrites with a diff against the old content', async () => {
    const p = file('ow.txt', 'keep\nold\n');
    const { out } = await call(env, 'write_file', { file_path: 'ow.txt', content: 'keep\nnew\n' });
    expect(out.output).toBe(`Overwrote ${p} (9 bytes)\n--- ${p}\n+++ ${p}\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n`);
    const same = await call(env, 'write_file', { file_path: 'ow.txt', content: 'keep\nnew\n' });
    expect(same.out.output).toContain('(content unchanged)');
  });

  test('refuses directories and secret files', async () => {
    mkdirSync(path.join(workspace, 'adir'), { recursive: true });
    expect((await call(env, 'write_file', { file_path: 'adir', content: 'x' })).out.stop_reason).toBe('failed');
    expect((await call(env, 'write_file', { file_path: '.vault.toml', content: 'x' })).out.stop_reason).toBe('failed');
  });
});

test('the default definitions carry the spec numbers', () => {
  const byName = Object.fromEntries(DEFAULT_BUILTIN_TOOLS.map((t) => [t.name, t]));
  expect(Object.keys(byName)).toEqual([
    'read_file', 'edit_file', 'write_file', 'exec_command', 'input_command', 'kill_command',
    'run_subagent', 'input_subagent', 'kill_subagent', 'read_image', 'describe_image',
  ]);
  const numbers = Object.fromEntries(DEFAULT_BUILTIN_TOOLS.map((t) => [t.name, [t.permission, t.timeoutMs, t.maxOutputLength]]));
  expect(numbers).toEqual({
    read_file: ['r', 30000, 64000], edit_file: ['rw', 30000, 16000], write_file: ['rw', 30000, 16000],
    exec_command: ['rw', 120000, 16000], input_command: ['rw', 130000, 16000], kill_command: ['rw', 30000, 16000],
    run_subagent: ['rw', 600000, 16000], input_subagent: ['rw', 600000, 16000], kill_subagent: ['rw', 30000, 16000],
    read_image: ['r', 60000, 16000], describe_image: ['r', 90000, 16000],
  });
  const required = Object.fromEntries(DEFAULT_BUILTIN_TOOLS.map((t) => [t.name, (t.parameters as { required: string[] }).required]));
  expect(required).toEqual({
    read_file: ['file_path'], edit_file: ['file_path', 'old_string', 'new_string'], write_file: ['file_path', 'content'],
    exec_command: ['description', 'cmd'], input_command: ['description', 'process_id'], kill_command: ['description', 'process_id'],
    run_subagent: ['description', 'prompt'], input_subagent: ['description', 'subagent_id'], kill_subagent: ['description', 'subagent_id'],
    read_image: ['source'], describe_image: ['source'],
  });
  expect(byName.read_image.forModel).toBe('vision');
  expect(byName.describe_image.forModel).toBe('text-only');
});
