/**
 * The real gateway as a child process, for end-to-end tests and the benchmarks: `node dist/src/gateway/cli.js
 * start` with only the environment the caller gives it (plus PATH, and HOME pointed at the caller's temp dir),
 * cwd in that dir so no repository config is picked up. `spawnGateway` resolves once stdout says
 * `listening on <url>` and rejects with the output if the process exits or stays silent first. Each child
 * leads its own process group, so `killAllGateways()` (call it in afterEach) SIGKILLs it with anything it
 * spawned, and waits for the exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

/** The built CLI, whether this file runs from test/e2e (jest) or from dist/test/e2e (the compiled benchmarks). */
export const GATEWAY_CLI = [resolve(__dirname, '../../src/gateway/cli.js'), resolve(__dirname, '../../dist/src/gateway/cli.js')].find((p) => existsSync(p))
  ?? resolve(__dirname, '../../dist/src/gateway/cli.js');
/** Output kept for error messages; long benchmark runs must not grow it without bound. */
const OUTPUT_LIMIT = 256 * 1024;

/** Throws unless the CLI has been built (`npm test` builds it in pretest). */
export function assertGatewayBuilt(): void {
  if (!existsSync(GATEWAY_CLI)) throw new Error(`${GATEWAY_CLI} is missing: run \`npx tsc -p tsconfig.json\` first (npm test does it in pretest)`);
}

export interface GatewayProcess {
  /** The listener's base URL, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Spawn → the "listening" line, ms. */
  readonly listeningMs: number;
  /** What the process wrote to stdout and stderr so far (the last 256 KiB). */
  output(): string;
  /** What it wrote to stdout alone (the last 256 KiB). */
  stdout(): string;
  /** Settles with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash: nothing is cleaned up), then waits for the process to be gone. */
  crash(): Promise<void>;
}

export interface SpawnGatewayOptions {
  /** Temp dir: the child's cwd and HOME. */
  dir: string;
  /** The child's environment on top of PATH and HOME. */
  env: Record<string, string>;
  startTimeoutMs?: number;
  /** Node flags placed before the CLI (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Another build of the CLI (an installed package's); default this checkout's GATEWAY_CLI. */
  cli?: string;
}

const live = new Set<ChildProcess>();

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

export function spawnGateway(o: SpawnGatewayOptions): Promise<GatewayProcess> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.dir, ...o.env };
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), o.cli ?? GATEWAY_CLI, 'start'], { env, cwd: o.dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);
  let out = '';
  let stdout = '';
  const keep = (d: Buffer) => {
    out += d.toString('utf8');
    if (out.length > OUTPUT_LIMIT) out = out.slice(-OUTPUT_LIMIT);
  };
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
    if (stdout.length > OUTPUT_LIMIT) stdout = stdout.slice(-OUTPUT_LIMIT);
  });
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = exitOf(child);
  void exited.then(() => live.delete(child));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`gateway did not start within ${o.startTimeoutMs ?? 15_000} ms:\n${out}`));
    }, o.startTimeoutMs ?? 15_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolveStart({
        url: m[1],
        child,
        listeningMs: performance.now() - t0,
        output: () => out,
        stdout: () => stdout,
        exited,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
        crash: async () => {
          killGroup(child, 'SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${out}`));
    });
  });
}

/** SIGKILLs every gateway a test left running (and what it spawned) and waits until they are gone. */
export async function killAllGateways(): Promise<void> {
  const children = [...live];
  for (const c of children) killGroup(c, 'SIGKILL');
  await Promise.all(children.map(exitOf));
}
