/**
 * The gateway as a black box: `node dist/src/gateway/cli.js start` on a fresh temp PENGUIN_HOME, driven only
 * through the public environment contract (random port, open DM policy, the bench model as its OpenAI
 * endpoint, optionally a fake Telegram or Discord), spawned by the e2e suite's `spawnGateway`. `startGateway` resolves
 * once /readyz is green and reports how long that took from spawn; `stop()` sends SIGTERM (SIGKILL after a
 * deadline) and removes the temp dir. `config` is written to the temp dir and named by PENGUIN_GATEWAY_CONFIG.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { removeDir, trackChild, trackDir } from './cleanup';
import { assertGatewayBuilt, spawnGateway, type GatewayProcess as SpawnedGateway } from '../../test/e2e/gateway-process';
import { PeakWatcher, sampleProcess, type ProcSample } from './proc';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface GatewayStartOptions {
  modelBaseUrl: string;
  telegram?: { token: string; apiRoot: string };
  /** The fake Slack: bot token + signing secret (HTTP events at /slack/events) and its Web API root. */
  slack?: { botToken: string; signingSecret: string; apiUrl: string };
  discord?: { token: string; apiUrl: string };
  /** Give up waiting for readiness after this long (default 30 s). */
  readyTimeoutMs?: number;
  /** Extra node flags for the gateway (default: BENCH_GATEWAY_NODE_ARGS, space-separated, e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** A gateway.yaml for this process (e.g. `sessions: {max_in_memory: 100000}`). */
  config?: string;
}

export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  readonly home: string;
  /** performance.now() at spawn (the origin of listeningMs and readyMs). */
  readonly spawnedAt: number;
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
  assertGatewayBuilt();
  const home = await mkdtemp(join(tmpdir(), 'pg-bench-gw-'));
  trackDir(home);
  const env: Record<string, string> = {
    PENGUIN_HOME: join(home, 'data'),
    PENGUIN_GATEWAY_HOST: '127.0.0.1',
    PENGUIN_GATEWAY_PORT: '0',
    PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
    PENGUIN_DM_POLICY: 'open',
    PENGUIN_GROUP_POLICY: 'open',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: o.modelBaseUrl,
    PENGUIN_MODEL: 'bench-model',
  };
  if (o.telegram) {
    env.TELEGRAM_BOT_TOKEN = o.telegram.token;
    env.TELEGRAM_API_ROOT = o.telegram.apiRoot;
  }
  if (o.slack) {
    env.SLACK_BOT_TOKEN = o.slack.botToken;
    env.SLACK_SIGNING_SECRET = o.slack.signingSecret;
    env.SLACK_API_URL = o.slack.apiUrl;
  }
  if (o.discord) {
    env.DISCORD_BOT_TOKEN = o.discord.token;
    env.DISCORD_API_URL = o.discord.apiUrl;
  }
  if (o.config !== undefined) {
    env.PENGUIN_GATEWAY_CONFIG = join(home, 'gateway.yaml');
    await writeFile(env.PENGUIN_GATEWAY_CONFIG, o.config);
  }
  const nodeArgs = o.nodeArgs ?? (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const readyTimeoutMs = o.readyTimeoutMs ?? 30_000;
  let gw: SpawnedGateway;
  try {
    gw = await spawnGateway({ dir: home, env, nodeArgs, startTimeoutMs: readyTimeoutMs });
  } catch (err) {
    await removeDir(home).catch(() => undefined);
    throw err;
  }
  const child = gw.child;
  trackChild(child);
  const peak = new PeakWatcher(child.pid ?? -1, 200);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const code = await Promise.race([gw.exited, delay(15_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') await Promise.race([gw.crash(), delay(5_000)]);
    }
    peak.stop();
    await removeDir(home).catch(() => undefined);
  };

  // "listening" is printed before adapters connect; readiness is /readyz green, timed from the same spawn.
  const deadline = performance.now() + readyTimeoutMs - gw.listeningMs;
  const readyFrom = performance.now() - gw.listeningMs;
  let readyMs = NaN;
  try {
    for (let i = 0; i < 100_000; i++) {
      const res = await fetch(`${gw.url}/readyz`).catch(() => undefined);
      if (res) await res.arrayBuffer().catch(() => undefined);
      if (res?.status === 200) {
        readyMs = performance.now() - readyFrom;
        break;
      }
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('/readyz did not turn green in time');
      await delay(5);
    }
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; gateway output:\n${gw.output().slice(-8_000)}`);
  }
  peak.start();
  const pid = child.pid!;
  return {
    url: gw.url,
    pid,
    home,
    spawnedAt: readyFrom,
    listeningMs: gw.listeningMs,
    readyMs,
    peak,
    sample: async () => {
      const s = await sampleProcess(pid);
      if (!s) throw new Error(`could not read the resource use of the gateway (pid ${pid}); output:\n${gw.output().slice(-8_000)}`);
      return s;
    },
    output: () => gw.output().slice(-8_000),
    stop,
  };
}
