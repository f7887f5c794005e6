/**
 * `penguin-gateway admin set-password`: the password comes from standard input (never argv), only its
 * scrypt hash is written, 0600, and it verifies; too short, empty or no input changes nothing; unknown
 * subcommands are usage errors.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runCli, type CliIO } from '../../../src/gateway/cli/index';
import { verifyPassword } from '../../../src/gateway/admin/login';
import { cliEnv, type CliEnv } from './helpers';

let c: CliEnv;
beforeEach(() => {
  c = cliEnv();
});
afterEach(() => c.cleanup());

async function run(argv: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: c.env, cwd: c.dir,
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  };
  return { code: await runCli(argv, io), stdout, stderr };
}

const file = () => join(c.home, 'admin-password');

it('stores only the scrypt hash of the first line of standard input, readable by the owner alone', async () => {
  const r = await run(['admin', 'set-password'], 'correct horse battery staple\nignored second line\n');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('admin password set');
  const stored = readFileSync(file(), 'utf8');
  expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+\n$/);
  expect(stored).not.toContain('correct horse');
  expect(statSync(file()).mode & 0o777).toBe(0o600);
  expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
  expect(await verifyPassword('ignored second line', stored)).toBe(false);
});

it('refuses a password shorter than 12 characters, or none, and writes nothing', async () => {
  const short = await run(['admin', 'set-password'], 'short\n');
  expect(short.code).toBe(1);
  expect(short.stderr).toContain('12 to 1024 characters (it has 5)');
  expect((await run(['admin', 'set-password'], '\n')).code).toBe(1);
  expect((await run(['admin', 'set-password'])).stderr).toContain('no password given on standard input');
  expect(existsSync(file())).toBe(false);
});

it('is a usage error without the subcommand, or with another one', async () => {
  expect((await run(['admin'])).code).toBe(2);
  expect((await run(['admin', 'reset'])).stderr).toContain('unknown admin subcommand "reset"');
  expect((await run(['admin', 'set-password', 'hunter2hunter2'])).stderr).toContain('unexpected argument');
});
