/**
 * The gateway as a black box: `node dist/src/gateway/cli.js start` on a fresh temp PENGUIN_HOME, driven only
 * through the public environment contract (random port, open DM policy, the bench model as its OpenAI
 * endpoint, optionally a fake Telegram). `startGateway` resolves once /readyz is green and reports how long
 * that took from spawn; `stop()` sends SIGTERM (SIGKILL after a deadline) and removes the temp dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { removeDir, trackChild, trackDir } from './cleanup';
import { PeakWatcher, sampleProcess, type ProcSample } from './proc';

/** The built CLI, from dist/bench/harness (npm run bench) or from bench/harness (tests run the sources). */
export const CLI = [resolve(__dirname, '../../src/gateway/cli.js'), resolve(__dirname, '../../dist/src/gateway/cli.js')].find((p) => existsSync(p)) ?? resolve(__dirname, '../../dist/src/gateway/cli.js');
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface GatewayStartOptions {
  modelBaseUrl: string;
  telegram?: { token: string; apiRoot: string };
  /** Give up waiting for readiness after this long (default 30 s). */
  readyTimeoutMs?: number;
  /** Extra node flags for the gateway (default: BENCH_GATEWAY_NODE_ARGS, space-separated, e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}

export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  readonly home: string;
  /** Spawn → "listening" line on stdout, ms. */
  readonly listeningMs: number;
  /** Spawn → first green /readyz, ms. */
  readonly readyMs: number;
  readonly peak: PeakWatcher;
  sample(): Promise<ProcSample>;
  /** Last lines of the process output, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Timers only ever race other promises here: unref'd so a finished run exits at once. */
const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export async function startGateway(o: GatewayStartOptions): Promise<GatewayProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const home = await mkdtemp(join(tmpdir(), 'pg-bench-gw-'));
  trackDir(home);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    PENGUIN_HOME: join(home, 'data'),
    PENGUIN_GATEWAY_HOST: '127.0.0.1',
    PENGUIN_GATEWAY_PORT: '0',
    PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
    PENGUIN_DM_POLICY: 'open',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: o.modelBaseUrl,
    PENGUIN_MODEL: 'bench-model',
  };
  if (o.telegram) {
    env.TELEGRAM_BOT_TOKEN = o.telegram.token;
    env.TELEGRAM_API_ROOT = o.telegram.apiRoot;
  }
  const t0 = performance.now();
  const nodeArgs = o.nodeArgs ?? (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, CLI, 'start'], { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);
  let tail = '';
  let wake: (() => void) | undefined;
  const keep = (d: Buffer) => {
    tail = (tail + d.toString('utf8')).slice(-8_000);
    wake?.();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

  const peak = new PeakWatcher(child.pid ?? -1, 200);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const code = await Promise.race([exited, delay(15_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') {
        child.kill('SIGKILL');
        await Promise.race([exited, delay(5_000)]);
      }
    }
    peak.stop();
    await removeDir(home).catch(() => undefined);
  };

  const deadline = t0 + (o.readyTimeoutMs ?? 30_000);
  let url: string | undefined;
  let listeningMs = NaN;
  let readyMs = NaN;
  try {
    if (child.pid === undefined) throw new Error('the gateway could not be spawned');
    // "listening" is printed before adapters connect; readiness is /readyz green.
    for (let i = 0; i < 100_000 && !url; i++) {
      const m = /listening on (http:\/\/\S+)/.exec(tail);
      if (m) {
        url = m[1];
        listeningMs = performance.now() - t0;
        break;
      }
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('the gateway did not print its address in time');
      await Promise.race([new Promise<void>((r) => (wake = r)), delay(50)]);
      wake = undefined;
    }
    for (let i = 0; i < 100_000; i++) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      if (res) await res.arrayBuffer().catch(() => undefined);
      if (res?.status === 200) {
        readyMs = performance.now() - t0;
        break;
      }
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('/readyz did not turn green in time');
      await delay(5);
    }
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; gateway output:\n${tail}`);
  }
  peak.start();
  const pid = child.pid!;
  return {
    url: url!,
    pid,
    home,
    listeningMs,
    readyMs,
    peak,
    sample: async () => {
      const s = await sampleProcess(pid);
      if (!s) throw new Error(`could not read the resource use of the gateway (pid ${pid}); output:\n${tail}`);
      return s;
    },
    output: () => tail,
    stop,
  };
}
