/**
 * A throwaway PostgreSQL server for the tests: one per jest run, started by the first test file that
 * needs it (initdb into a temp dir, pg_ctl on 127.0.0.1 at a free port with its socket in that dir and
 * password auth, one empty database) and stopped by the global teardown; as root, it runs as `nobody`
 * (postgres refuses root).
 * Test files, in whatever worker, find it through the run dir the global setup made (PENGUIN_TEST_PG_RUN).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const RUN_ENV = 'PENGUIN_TEST_PG_RUN';
export const RUN_PREFIX = 'penguin-pg-run-';

export interface PgServer {
  bin: string;
  dir: string;
  port: number;
  user: string;
  password: string;
  /** An empty database made with the server, for the tests' schemas (one CREATE DATABASE costs most of a second). */
  database: string;
  /** The command prefix that runs the server's binaries as their owner (empty when not root). */
  asUser: string[];
}

/**
 * The directory holding initdb, pg_ctl and createdb: where the initdb on PATH really lives (a link in
 * /usr/local/bin leads to it), else Debian's /usr/lib/postgresql/<version>/bin, the newest.
 */
export function findPgBin(): string | undefined {
  const onPath = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'initdb')));
  if (onPath) {
    const real = dirname(realpathSync(join(onPath, 'initdb')));
    if (['pg_ctl', 'createdb'].every((t) => existsSync(join(real, t)))) return real;
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

export const NO_POSTGRES = 'PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin); install the Debian package `postgresql`';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startServer(bin: string): Promise<PgServer> {
  const dir = mkdtempSync(join(tmpdir(), 'penguin-pg-'));
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'pw'), password);
  let asUser: string[] = [];
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'nobody']);
    const uid = Number(stdout.trim());
    for (const p of [dir, join(dir, 'pw')]) chownSync(p, uid, uid);
    asUser = ['runuser', '-u', 'nobody', '--'];
  }
  const exec = (tool: string, args: string[]) => pgTool({ bin, asUser }, tool, args);
  const data = join(dir, 'data');
  await exec('initdb', ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${join(dir, 'pw')}`, '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
  let port = 0;
  for (let attempt = 1; !port; attempt++) {
    const free = await freePort();
    const opts = `-h 127.0.0.1 -p ${free} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    try {
      await exec('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', opts, 'start']);
      port = free;
    } catch (e) {
      // Another process may have taken the port first: try another.
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
      if (attempt >= 3) throw new Error(`pg_ctl start failed: ${(e as Error).message}\n${log}`);
    }
  }
  const server: PgServer = { bin, dir, port, user: 'postgres', password, database: 'gateway_tests', asUser };
  try {
    await run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', server.user, server.database], { env: { ...process.env, PGPASSWORD: password } });
  } catch (e) {
    await stopServer(server);
    throw e;
  }
  return server;
}

/** Runs one of the server's binaries as the server's owner. */
function pgTool(s: Pick<PgServer, 'bin' | 'asUser'>, tool: string, args: string[]) {
  const [cmd, ...prefix] = [...s.asUser, join(s.bin, tool)];
  return run(cmd, [...prefix, ...args], { timeout: 60_000 });
}

/** Stops a server started by startServer and removes its files. */
export async function stopServer(s: PgServer): Promise<void> {
  await pgTool(s, 'pg_ctl', ['-D', join(s.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  rmSync(s.dir, { recursive: true, force: true });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The run's server: started here if no other test file has started it yet, else the one it started. */
export async function sharedServer(): Promise<PgServer> {
  const bin = findPgBin();
  if (!bin) throw new Error(NO_POSTGRES);
  const runDir = process.env[RUN_ENV];
  if (!runDir || !existsSync(runDir)) throw new Error(`${RUN_ENV} is not set: run the tests through jest.config.js, whose global setup makes the run directory`);
  const info = join(runDir, 'server.json');
  const failed = join(runDir, 'failed.txt');
  let starter = false;
  try {
    closeSync(openSync(join(runDir, 'start.lock'), 'wx'));
    starter = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (starter) {
    try {
      const s = await startServer(bin);
      writeFileSync(`${info}.tmp`, JSON.stringify(s));
      renameSync(`${info}.tmp`, info);
      return s;
    } catch (e) {
      writeFileSync(failed, (e as Error).message);
      throw e;
    }
  }
  for (let waited = 0; waited < 120_000; waited += 50) {
    if (existsSync(info)) return JSON.parse(readFileSync(info, 'utf8')) as PgServer;
    if (existsSync(failed)) throw new Error(`the test PostgreSQL server did not start: ${readFileSync(failed, 'utf8')}`);
    await sleep(50);
  }
  throw new Error('timed out waiting for another test file to start the test PostgreSQL server');
}

/** The global teardown's part: stop the run's server, if one was started, and remove the run dir. */
export async function endRun(runDir: string): Promise<void> {
  const info = join(runDir, 'server.json');
  if (existsSync(info)) await stopServer(JSON.parse(readFileSync(info, 'utf8')) as PgServer);
  rmSync(runDir, { recursive: true, force: true });
}

/** The global setup's part: a run dir named after this jest process, so a later run can tell it is stale. */
export function beginRun(): string {
  return mkdtempSync(join(tmpdir(), `${RUN_PREFIX}${process.pid}-`));
}

/** Run dirs of jest processes that died without their teardown: their servers are stopped and removed. */
export async function sweepStaleRuns(): Promise<void> {
  for (const name of readdirSync(tmpdir())) {
    const owner = name.startsWith(RUN_PREFIX) ? Number(name.slice(RUN_PREFIX.length).split('-')[0]) : NaN;
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) await endRun(join(tmpdir(), name));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
