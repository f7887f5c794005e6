/**
 * `npm start` (scripts/start.js). In a small stand-in project whose `build` script writes its own
 * dist/src/gateway/cli.js: the first start builds, a start with the build current builds nothing, and a
 * start after a source edit builds again and runs the edited code; the build's output goes to stderr, so
 * stdout carries only what the program prints; a failed build stops the start with its exit code. Then
 * the real thing: `npm start` in this checkout, built, reaches "listening on" without compiling.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
let dir: string;

const MAKE = `const fs = require('fs');
const v = fs.readFileSync('src/version.txt', 'utf8').trim();
if (v === 'broken') { console.error('src/version.txt: does not compile'); process.exit(3); }
console.log('compiling ' + v);
fs.mkdirSync('dist/src/gateway', { recursive: true });
fs.writeFileSync('dist/src/gateway/cli.js', 'exports.main = (argv) => console.log(JSON.stringify({ version: ' + JSON.stringify(v) + ', argv }));');
`;

function project(): void {
  dir = mkdtempSync(join(tmpdir(), 'pg-start-'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'src'));
  for (const f of ['start.js', 'build-state.js']) copyFileSync(join(ROOT, 'scripts', f), join(dir, 'scripts', f));
  writeFileSync(join(dir, 'scripts', 'make.js'), MAKE);
  writeFileSync(join(dir, 'src', 'version.txt'), 'v1\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'stand-in', version: '1.0.0', private: true,
    scripts: { build: 'node scripts/build-state.js begin && node scripts/make.js && node scripts/build-state.js end' },
  }));
}

function start(...args: string[]) {
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'start.js'), ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Sets an input's mtime into the past or future, so "newer" never depends on the clock's resolution. */
function touch(p: string, secondsFromNow: number): void {
  const t = Date.now() / 1000 + secondsFromNow;
  utimesSync(join(dir, p), t, t);
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('builds when needed, runs the current code, and keeps the build off stdout', () => {
  project();
  let r = start('--config', 'x.yaml');
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('penguin-gateway: no finished build in dist/: building first (npm run build)');
  expect(r.stderr).toContain('compiling v1');
  expect(JSON.parse(r.stdout)).toEqual({ version: 'v1', argv: ['start', '--config', 'x.yaml'] });

  r = start();
  expect(r).toEqual({ status: 0, stdout: `${JSON.stringify({ version: 'v1', argv: ['start'] })}\n`, stderr: '' });

  writeFileSync(join(dir, 'src', 'version.txt'), 'v2\n');
  touch('src/version.txt', 5);
  r = start();
  expect(r.stderr).toContain(`penguin-gateway: ${join('src', 'version.txt')} changed since the last build: building first`);
  expect(JSON.parse(r.stdout)).toEqual({ version: 'v2', argv: ['start'] });
}, 60_000);

it('stops with the build\'s exit code when the build fails, and builds again at the next start', () => {
  project();
  writeFileSync(join(dir, 'src', 'version.txt'), 'broken\n');
  let r = start();
  expect(r.status).toBe(3);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('src/version.txt: does not compile');
  expect(r.stderr).toContain('penguin-gateway: the build failed (exit 3); fix it and start again');

  writeFileSync(join(dir, 'src', 'version.txt'), 'v3\n');
  r = start();
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ version: 'v3', argv: ['start'] });
}, 60_000);

it('`npm start` in this checkout runs the built gateway without compiling', async () => {
  const state = (require(join(ROOT, 'scripts', 'build-state.js')) as { buildState(root: string): { current: boolean; reason?: string } }).buildState(ROOT);
  if (!state.current) throw new Error(`the checkout's build is not current (${state.reason}): run \`npm run build\` first (npm test does it in pretest)`);
  const stampBefore = statSync(join(ROOT, 'dist', '.build-stamp')).mtimeMs;
  dir = mkdtempSync(join(tmpdir(), 'pg-npm-start-'));
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    detached: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, PENGUIN_HOME: join(dir, 'data'), PENGUIN_GATEWAY_PORT: '0', PENGUIN_ADMIN_TOKEN: 'npm-start-test-token-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" within 45 s:\n${out}\n${err}`)), 45_000);
      child.stdout!.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      void exited.then((code) => reject(new Error(`npm start exited with ${code}:\n${out}\n${err}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(err).not.toContain('building first');
    expect(statSync(join(ROOT, 'dist', '.build-stamp')).mtimeMs).toBe(stampBefore);
  } finally {
    if (child.pid !== undefined) await endGroup(child.pid);
    await exited;
  }
}, 60_000);

/** SIGTERM to the group (npm, its shell, the gateway), then wait until every one of them is gone. */
async function endGroup(pgid: number): Promise<void> {
  process.kill(-pgid, 'SIGTERM');
  for (let i = 0; i < 400; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  process.kill(-pgid, 'SIGKILL');
}
