/**
 * `npm run bench` (after tsc): runs every benchmark in order against the built gateway and prints the
 * Markdown report on stdout (progress goes to stderr). `--quick` runs a reduced set in well under a minute;
 * `--platform=web|telegram|slack|discord` skips the detection of the Telegram adapter (slack/discord: the
 * platform rows run on that fake); unless the platform is Slack, a Slack row set (overhead, a streamed
 * thread reply, threads at once) follows the main platform's, and with Telegram as the platform the
 * overhead and streaming scenarios also run against the fake Discord (the "(Discord)" rows); `--json`
 * appends the raw results; `--repeat=N` runs everything N times and reports the median of each figure.
 * Cold starts are measured for the web playground alone, the main platform and Telegram + Slack + Discord.
 * `--only=a,b` runs just the named sections (cold-start, overhead, scale-1000, dms, sessions-exchange, …).
 * `runBench()` is the same in-process (the smoke test uses it). Every scenario is bounded by counts and
 * deadlines, uses 127.0.0.1 only, and child processes and temp dirs are cleaned up even when one fails.
 */
import { runEngineBench } from './engine-overhead';
import { runColdStart, runSessions } from './footprint';
import { medianOfRuns } from './merge';
import { cleanupAll, installExitHooks } from './harness/cleanup';
import { machineInfo } from './harness/machine';
import { now } from './harness/replies';
import type { FakePlatform, PlatformName } from './harness/rig';
import { runOverhead } from './overhead';
import { renderReport, type BenchResults, type SectionIssue } from './report';
import { runScale } from './scale';
import { runStreaming } from './streaming';
import { runTraceThroughput } from './trace-throughput';

export interface BenchOptions {
  quick?: boolean;
  /** Force a platform path; default: Telegram when the built gateway runs it, else the web playground. */
  platform?: PlatformName;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Full runs whose medians are reported (default 1). */
  repeat?: number;
  /** Run only these sections (the names of the progress lines); default: all. */
  only?: string[];
}

export const SECTIONS = [
  'cold-start', 'overhead', 'streaming', 'discord-overhead', 'discord-streaming', 'scale-100', 'scale-1000', 'dms', 'dms-primed', 'dms-warm',
  'slack-overhead', 'slack-streaming', 'slack-threads', 'sessions-open', 'sessions-exchange', 'engine', 'trace',
] as const;

/** Sizes of each scenario: the full run (the published numbers) and the quick smoke run. */
export const PLAN = {
  full: {
    coldStart: { runs: 5, idleMs: 1000, settledMs: 15_000 },
    overhead: { messages: 200, chats: 20 },
    streaming: { tokensPerSecond: 50, seconds: 20 },
    scale: { tiers: [100, 1000], tokens: 100, tokensPerSecond: 20 },
    dms: { chats: 20, tokens: 300, tokensPerSecond: 300 / 3.07, runs: 3, warmSettleMs: 2500, primeChats: 20 },
    slackThreads: { chats: 20, tokens: 300, tokensPerSecond: 300 / 3.07 },
    // one reply every 1.4 s: Slack's ~50 chat.update/min per workspace (each reply's Stop button is removed by one)
    slackOverhead: { messages: 40, chats: 20, gapMs: 1400 },
    sessionsOpen: { sessions: 10_000, warm: 100, concurrency: 16, settleMs: 15_000 },
    sessionsExchange: { sessions: 1000, warm: 50, concurrency: 16, settleMs: 15_000 },
    engine: { messages: 10_000, traceRecords: 10_000, runs: 5 },
    trace: { records: 10_000, runs: 3 },
    // more chats than Telegram's 20: each Discord channel takes one new message per 1.2 s
    discord: { overhead: { messages: 200, chats: 40 }, streaming: { tokensPerSecond: 50, seconds: 20 } },
  },
  quick: {
    coldStart: { runs: 1, idleMs: 300, settledMs: 600 },
    overhead: { messages: 10, chats: 5 },
    streaming: { tokensPerSecond: 50, seconds: 2 },
    scale: { tiers: [5, 15], tokens: 10, tokensPerSecond: 20 },
    dms: { chats: 5, tokens: 50, tokensPerSecond: 100, runs: 1, warmSettleMs: 500, primeChats: 5 },
    slackThreads: { chats: 5, tokens: 50, tokensPerSecond: 100 },
    slackOverhead: { messages: 10, chats: 5, gapMs: 40 },
    sessionsOpen: { sessions: 50, warm: 5, concurrency: 8, settleMs: 200 },
    sessionsExchange: { sessions: 15, warm: 5, concurrency: 8, settleMs: 200 },
    engine: { messages: 1000, traceRecords: 1000, runs: 1 },
    trace: { records: 2000, runs: 1 },
    discord: { overhead: { messages: 10, chats: 20 }, streaming: { tokensPerSecond: 50, seconds: 2 } },
  },
};

export async function runBench(opts: BenchOptions = {}): Promise<{ results: BenchResults; markdown: string }> {
  const runs: BenchResults[] = [];
  const repeat = Math.max(1, opts.repeat ?? 1);
  for (let i = 0; i < repeat; i++) {
    if (repeat > 1) opts.log?.(`bench: run ${i + 1} of ${repeat}`);
    runs.push(await runOnce(opts));
  }
  const results = medianOfRuns(runs);
  return { results, markdown: renderReport(results) };
}

const ALL_FAKES: FakePlatform[] = ['telegram', 'slack', 'discord'];

async function runOnce(opts: BenchOptions): Promise<BenchResults> {
  const log = opts.log ?? (() => undefined);
  const plan = opts.quick ? PLAN.quick : PLAN.full;
  const t0 = now();
  const issues: SectionIssue[] = [];
  const results: BenchResults = {
    machine: machineInfo(),
    quick: !!opts.quick,
    platform: 'web',
    telegramWired: false,
    seconds: 0,
    scale: [],
    scaleTiers: plan.scale.tiers,
    dms: [],
    dmsPrimed: [],
    dmsWarm: [],
    dmChats: plan.dms.chats,
    issues,
  };
  const section = async (name: string, run: () => Promise<void>) => {
    if (opts.only && !opts.only.includes(name)) return;
    const s0 = now();
    log(`bench: ${name}…`);
    try {
      await run();
      log(`bench: ${name} done in ${((now() - s0) / 1000).toFixed(1)} s`);
    } catch (err) {
      const message = (err as Error).message.split('\n')[0];
      issues.push({ section: name, kind: 'error', message });
      log(`bench: ${name} failed: ${(err as Error).stack ?? message}`);
      await cleanupAll();
    }
  };
  try {
    // Cold starts with the web playground alone, the main platform and all three fakes; they also tell
    // whether this build wires Telegram.
    await section('cold-start', async () => {
      const main = opts.platform ?? 'telegram';
      const configs: FakePlatform[][] = [[], ...(main === 'web' ? [] : [[main]]), ALL_FAKES];
      results.coldStart = await runColdStart({ configs, ...plan.coldStart });
      results.telegramWired = results.coldStart.telegramConnected;
    });
    // Without the cold starts (--only) the build is taken to wire Telegram, as every build of this tree does.
    if (!results.coldStart && opts.only) results.telegramWired = true;
    results.platform = opts.platform ?? (results.telegramWired ? 'telegram' : 'web');
    const platform = results.platform;
    const telegram = platform === 'telegram';
    const why = platform === 'slack' || platform === 'discord' ? `is specified against Telegram's limits (run without --platform=${platform})` : 'needs the Telegram adapter, which this build does not wire into the gateway';
    const blocked = (name: string, what: string) => issues.push({ section: name, kind: 'blocked', message: `${what} ${why}` });

    await section('overhead', async () => {
      results.overhead = await runOverhead({ platform, ...plan.overhead });
    });
    await section('streaming', async () => {
      results.streaming = await runStreaming({ platform, ...plan.streaming });
    });
    if (telegram) {
      const discord: NonNullable<BenchResults['discord']> = {};
      results.discord = discord;
      await section('discord-overhead', async () => {
        discord.overhead = await runOverhead({ platform: 'discord', ...plan.discord.overhead });
      });
      await section('discord-streaming', async () => {
        discord.streaming = await runStreaming({ platform: 'discord', ...plan.discord.streaming });
      });
    }
    for (const chats of plan.scale.tiers) {
      if (!telegram) {
        blocked(`scale-${chats}`, `${chats} concurrent chats against Telegram's real limits`);
        continue;
      }
      await section(`scale-${chats}`, async () => {
        results.scale.push(await runScale({ platform, chats, tokens: plan.scale.tokens, tokensPerSecond: plan.scale.tokensPerSecond }));
      });
    }
    await section('dms', async () => {
      for (let i = 0; i < plan.dms.runs; i++) results.dms.push(await runScale({ platform, ...plan.dms }));
    });
    await section('dms-primed', async () => {
      for (let i = 0; i < plan.dms.runs; i++) results.dmsPrimed.push(await runScale({ platform, ...plan.dms, primed: plan.dms.primeChats }));
    });
    await section('dms-warm', async () => {
      for (let i = 0; i < plan.dms.runs; i++) results.dmsWarm.push(await runScale({ platform, ...plan.dms, warm: true }));
    });
    if (platform !== 'slack') {
      const slack: NonNullable<BenchResults['slack']> = {};
      results.slack = slack;
      await section('slack-overhead', async () => {
        slack.overhead = await runOverhead({ platform: 'slack', ...plan.slackOverhead });
      });
      await section('slack-streaming', async () => {
        slack.streaming = await runStreaming({ platform: 'slack', ...plan.streaming });
      });
      await section('slack-threads', async () => {
        slack.threads = await runScale({ platform: 'slack', ...plan.slackThreads });
      });
    }
    await section('sessions-open', async () => {
      results.sessionsOpen = await runSessions({ mode: 'open', ...plan.sessionsOpen });
    });
    await section('sessions-exchange', async () => {
      results.sessionsExchange = await runSessions({ mode: 'exchange', ...plan.sessionsExchange });
    });
    await section('engine', async () => {
      results.engine = await runEngineBench(plan.engine);
    });
    await section('trace', async () => {
      results.trace = await runTraceThroughput(plan.trace);
    });
  } finally {
    await cleanupAll();
  }
  results.seconds = (now() - t0) / 1000;
  return results;
}

function parseArgs(argv: string[]): BenchOptions & { json: boolean } {
  const out: BenchOptions & { json: boolean } = { json: false };
  for (const a of argv) {
    const repeat = /^--repeat=(\d+)$/.exec(a);
    const only = /^--only=(.+)$/.exec(a);
    if (a === '--quick') out.quick = true;
    else if (a === '--json') out.json = true;
    else if (repeat && Number(repeat[1]) >= 1) out.repeat = Number(repeat[1]);
    else if (only) {
      out.only = only[1].split(',');
      const unknown = out.only.filter((n) => !(SECTIONS as readonly string[]).includes(n) && !/^scale-\d+$/.test(n));
      if (unknown.length) throw new Error(`--only: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
    } else if (['--platform=web', '--platform=telegram', '--platform=slack', '--platform=discord'].includes(a)) out.platform = a.slice('--platform='.length) as PlatformName;
    else throw new Error(`unknown argument ${JSON.stringify(a)} (expected --quick, --json, --repeat=N, --only=section,…, --platform=web|telegram|slack|discord)`);
  }
  return out;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const args = parseArgs(argv);
  installExitHooks();
  const { results, markdown } = await runBench({ ...args, log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(markdown);
  if (args.json) process.stdout.write(`\n\`\`\`json\n${JSON.stringify(results, null, 2)}\n\`\`\`\n`);
  return results.issues.some((i) => i.kind === 'error') ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
