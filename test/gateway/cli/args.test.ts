/**
 * The command line's shape: --help / --version / per-command help answer 0 on stdout; a missing or
 * unknown command, unknown or misplaced options and extra arguments answer 2 with the usage on stderr;
 * a config with errors stops every command with exit 1 before the data root is touched.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, type CliEnv } from './helpers';

let c: CliEnv;
beforeEach(() => {
  c = cliEnv();
});
afterEach(() => c.cleanup());

describe('help and version', () => {
  it('prints the usage for --help and -h', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const r = await c.run(argv);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^Usage: penguin-gateway <command>/);
      expect(r.stdout).toContain('pairing approve <code>');
    }
  });

  it('prints a command\'s help after the command or after help', async () => {
    for (const argv of [['doctor', '--help'], ['help', 'doctor'], ['--help', 'doctor']]) {
      const r = await c.run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: penguin-gateway doctor/);
    }
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    for (const argv of [['--version'], ['-V']]) {
      const r = await c.run(argv);
      expect(r).toEqual({ code: 0, stdout: `penguin-gateway ${pkg.version}\n`, stderr: '' });
    }
  });
});

describe('bad command lines exit 2 with the usage', () => {
  it.each([
    [[], 'no command given'],
    [['launch'], 'unknown command "launch"'],
    [['doctor', '--verbose'], "unknown option '--verbose'"],
    [['migrate', '--timeout', '500'], '--timeout is an option of "doctor" only'],
    [['reindex', '--all'], '--all is an option of "pairing" only'],
    [['doctor', '--timeout', 'soon'], '--timeout: expected milliseconds between 100 and 600000, found "soon"'],
    [['migrate', 'now'], 'unexpected argument "now" after "migrate"'],
    [['start', '--config'], "option '--config <value>' argument missing"],
    [['pairing'], 'pairing needs a subcommand: approve <code>, deny <code> or list'],
    [['pairing', 'grant', 'ABCDEFGH'], 'unknown pairing subcommand "grant" (approve, deny or list)'],
    [['pairing', 'approve'], 'pairing approve needs the code the user was given'],
    [['pairing', 'approve', 'no!'], 'code: expected a pairing code of 8 letters and digits (e.g. K7M2QX9P), found "no!"'],
    [['pairing', 'approve', 'ABCDEFGH', 'extra'], 'unexpected argument "extra" after "pairing"'],
  ])('%j', async (argv, message) => {
    const r = await c.run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`penguin-gateway: ${message}`);
    expect(r.stderr).toContain('Usage: penguin-gateway <command>');
    expect(existsSync(c.home)).toBe(false);
  });
});

describe('config errors', () => {
  it.each([['doctor'], ['migrate'], ['reindex'], ['pairing', 'list'], ['start']])('stop "%s" with exit 1 before anything is touched', async (...argv) => {
    mkdirSync(join(c.dir, 'conf'));
    writeFileSync(join(c.dir, 'conf', 'gw.yaml'), 'listen:\n  port: "high"\nbogus: 1\n');
    let started = false;
    const r = await c.run([...argv, '--config', 'conf/gw.yaml'], {
      loadStart: () => async () => {
        started = true;
        return { done: Promise.resolve(0) };
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('penguin-gateway: the configuration has 2 errors:');
    expect(r.stderr).toContain('conf/gw.yaml: listen.port: expected');
    expect(r.stderr).toContain('conf/gw.yaml: bogus: expected one of the known keys');
    expect(started).toBe(false);
    expect(existsSync(c.home)).toBe(false);
  });

  it('reports a --config file that does not exist', async () => {
    const r = await c.run(['migrate', '--config=missing.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('command line: --config: expected an existing config file, found "missing.yaml" (no such file)');
    expect(existsSync(c.home)).toBe(false);
  });

  it('reports bad environment variables', async () => {
    c.env.PENGUIN_GATEWAY_PORT = '99999';
    const r = await c.run(['doctor']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment: PENGUIN_GATEWAY_PORT: expected an integer port 0-65535, found "99999"');
  });
});
