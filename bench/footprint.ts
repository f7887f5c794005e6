/**
 * Footprint (gateway.md §11, issue "Footprint and scale"): cold start (spawn → /readyz green, and spawn →
 * the first getUpdates at the fake Telegram) and idle RSS over `runs` fresh processes for each set of
 * configured platforms (the web playground alone, the main platform, Telegram + Slack + Discord against their
 * fakes), the sets interleaved run by run; the last run of each set also reads the RSS once the process has
 * settled (`settledMs` after ready: V8's memory reducer has handed back start-up's young generation and
 * garbage by then); and the RSS one more idle session costs: `warm` conversations
 * first (agent loaded, code paths JITted), then `sessions` more web-playground conversations, all still held
 * in memory (idle eviction defaults to 30 min and is not reached; the memory budget is raised past them).
 * `open`: each conversation's only message is `/mode read-only`, which opens and binds its session without
 * running a Task (the cheapest session there is); `exchange`: one message and one reply from an instantly
 * answering model. Each RSS reading follows the gateway's idle collection after the batch (its /metrics
 * counter). Reported: (RSS after − RSS before) / sessions, and the same for the V8 heap in use (from
 * /metrics).
 */
import { openIdleRig, openRig, type FakePlatform } from './harness/rig';
import { now, sleep } from './harness/replies';
import { median } from './harness/stats';
import type { WebDriver } from './harness/web-driver';

export interface ColdStartOptions {
  /** The sets of fakes to configure, each started `runs` times ([] = only the web playground). */
  configs: FakePlatform[][];
  runs: number;
  /** Idle time before the idle RSS is read, ms. */
  idleMs: number;
  /** Ready → the settled RSS reading of each set's last run, ms. */
  settledMs: number;
}

export interface StartConfigResult {
  platforms: FakePlatform[];
  /** The chat adapters /readyz listed as connected in the first run (e.g. ['telegram', 'web']). */
  adapters: string[];
  runs: number;
  readyMs: number[];
  listeningMs: number[];
  /** Spawn → the first getUpdates at the fake Telegram (empty without Telegram). */
  firstPollMs: number[];
  idleRssBytes: number[];
  /** RSS `settledAfterMs` after ready, in the last run. */
  settledRssBytes: number;
  settledAfterMs: number;
  medianReadyMs: number;
  /** The fastest start: what the machine does when nothing else competes for it. */
  minReadyMs: number;
  medianFirstPollMs: number;
  medianIdleRssBytes: number;
}

export interface ColdStartResult {
  /** /readyz listed the Telegram adapter as connected where Telegram was configured (the build wires it). */
  telegramConnected: boolean;
  configs: StartConfigResult[];
}

/** How long to wait for the first getUpdates after /readyz, should readiness come first. */
const FIRST_POLL_WAIT_MS = 5_000;

export async function runColdStart(o: ColdStartOptions): Promise<ColdStartResult> {
  const out: StartConfigResult[] = o.configs.map((platforms) => ({
    platforms, adapters: [], runs: 0, readyMs: [], listeningMs: [], firstPollMs: [], idleRssBytes: [], settledRssBytes: NaN, settledAfterMs: o.settledMs,
    medianReadyMs: NaN, minReadyMs: NaN, medianFirstPollMs: NaN, medianIdleRssBytes: NaN,
  }));
  for (let i = 0; i < o.runs; i++) {
    for (const c of out) {
      const rig = await openIdleRig(c.platforms);
      try {
        if (i === 0) c.adapters = await connectedAdapters(rig.gw.url);
        c.runs++;
        c.readyMs.push(rig.gw.readyMs);
        c.listeningMs.push(rig.gw.listeningMs);
        const tg = rig.telegram;
        if (tg) {
          for (let k = 0; k < FIRST_POLL_WAIT_MS / 5 && tg.firstPollAt === undefined; k++) await sleep(5);
          if (tg.firstPollAt !== undefined) c.firstPollMs.push(tg.firstPollAt - rig.gw.spawnedAt);
        }
        await sleep(o.idleMs);
        c.idleRssBytes.push((await rig.gw.sample()).rssBytes);
        if (i === o.runs - 1) {
          await sleep(rig.gw.spawnedAt + rig.gw.readyMs + o.settledMs - now());
          c.settledRssBytes = (await rig.gw.sample()).rssBytes;
        }
      } finally {
        await rig.close();
      }
    }
  }
  for (const c of out) {
    c.medianReadyMs = median(c.readyMs);
    c.minReadyMs = Math.min(...c.readyMs);
    c.medianFirstPollMs = median(c.firstPollMs);
    c.medianIdleRssBytes = median(c.idleRssBytes);
  }
  const withTelegram = out.filter((c) => c.platforms.includes('telegram'));
  return { telegramConnected: withTelegram.length > 0 && withTelegram.every((c) => c.adapters.includes('telegram')), configs: out };
}

async function connectedAdapters(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/readyz`)).json()) as { adapters?: { name: string; state: string }[] };
  return (body.adapters ?? []).filter((a) => a.state === 'connected').map((a) => a.name);
}

export interface SessionsOptions {
  mode: 'open' | 'exchange';
  sessions: number;
  warm: number;
  /** Conversations in flight at once. */
  concurrency: number;
  /** Longest wait for the gateway's idle collection before each RSS reading, ms. */
  settleMs: number;
  deadlineMs?: number;
}

export interface SessionsResult {
  mode: 'open' | 'exchange';
  sessions: number;
  created: number;
  seconds: number;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  rssPerSessionBytes: number;
  heapPerSessionBytes: number;
  /** Gateway CPU seconds spent creating them. */
  cpuSeconds: number;
}

/** How long to wait for the title calls that follow first Tasks before reading memory anyway. */
const TITLE_WAIT_MS = 5_000;

async function readMetrics(web: WebDriver): Promise<{ finished: number; heap: number; collections: number }> {
  const res = await web.request('GET', '/metrics');
  let finished = 0;
  for (const m of res.body.matchAll(/^\S*tasks_finished_total\{[^}]*\}\s+(\d+)/gm)) finished += Number(m[1]);
  const heap = Number(/^\S*nodejs_heap_size_used_bytes\s+(\d+)/m.exec(res.body)?.[1] ?? NaN);
  const collections = Number(/^\S*idle_collections_total\s+(\d+)/m.exec(res.body)?.[1] ?? 0);
  return { finished, heap, collections };
}

/** Pages a collection freed go back to the system shortly after it (V8 unmaps them on a helper thread). */
const RETURN_MS = 500;

/**
 * The gateway settling after a batch: its next idle collection (the /metrics counter moving past `seen`,
 * sessions.idle_gc_ms after the last activity), then RETURN_MS; `settleMs` at most.
 */
async function settle(web: WebDriver, seen: number, settleMs: number): Promise<void> {
  const until = now() + settleMs;
  while (now() < until && (await readMetrics(web)).collections <= seen) await sleep(100);
  await sleep(RETURN_MS);
}

/** Every session stays in memory: the count budget is raised past what the scenario opens. */
const HOLD_ALL = (sessions: number) => `sessions:\n  max_in_memory: ${Math.max(10_000, 2 * sessions)}\n`;

export async function runSessions(o: SessionsOptions): Promise<SessionsResult> {
  const rig = await openRig('web', { config: HOLD_ALL(o.warm + o.sessions) });
  const web = rig.driver as WebDriver;
  const deadline = now() + (o.deadlineMs ?? 240_000);
  let created = 0;
  const create = async (from: number, count: number): Promise<void> => {
    let next = from;
    const end = from + count;
    const worker = async () => {
      while (next < end && now() < deadline) {
        const i = next++;
        await web.send(i + 1, o.mode === 'open' ? '/mode read-only' : 'hello', { observe: false });
        created++;
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    if (o.mode === 'open') return;
    // every Task has finished, then (briefly) the title call each first Task is followed by
    for (let i = 0; i < 100_000 && now() < deadline; i++) {
      if ((await readMetrics(web)).finished >= from + count) break;
      await sleep(50);
    }
    const titlesBy = Math.min(deadline, now() + TITLE_WAIT_MS);
    for (let i = 0; i < 1_000 && rig.model.requestCount < 2 * (from + count) && now() < titlesBy; i++) await sleep(20);
  };
  try {
    let seen = (await readMetrics(web)).collections;
    await create(0, o.warm);
    await settle(web, seen, o.settleMs);
    const before = await rig.gw.sample();
    const heapBefore = (await readMetrics(web)).heap;
    const t0 = now();
    created = 0;
    seen = (await readMetrics(web)).collections;
    await create(o.warm, o.sessions);
    const seconds = (now() - t0) / 1000;
    const afterCreate = await rig.gw.sample();
    if (created < o.sessions) throw new Error(`sessions: only ${created} of ${o.sessions} conversations were created before the deadline`);
    await settle(web, seen, o.settleMs);
    const after = await rig.gw.sample();
    const heapAfter = (await readMetrics(web)).heap;
    return {
      mode: o.mode,
      sessions: o.sessions,
      created,
      seconds,
      rssBeforeBytes: before.rssBytes,
      rssAfterBytes: after.rssBytes,
      heapBeforeBytes: heapBefore,
      heapAfterBytes: heapAfter,
      rssPerSessionBytes: (after.rssBytes - before.rssBytes) / created,
      heapPerSessionBytes: (heapAfter - heapBefore) / created,
      cpuSeconds: afterCreate.cpuSeconds - before.cpuSeconds,
    };
  } finally {
    await rig.close();
  }
}
