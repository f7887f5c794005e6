/**
 * Footprint (gateway.md §11): cold start (spawn → /readyz green) and idle RSS over `runs` fresh processes,
 * and the RSS one more idle session costs: `warm` conversations first (agent loaded, code paths JITted),
 * then `sessions` more web-playground conversations, all still held in memory (idle eviction defaults to
 * 30 min and is not reached). `open`: each conversation's only message is `/mode read-only`, which opens
 * and binds its session without running a Task (the cheapest session there is); `exchange`: one message
 * and one reply from an instantly answering model. Reported: (RSS after − RSS before) / sessions, and the
 * same for the V8 heap in use (from /metrics, garbage not yet collected included).
 */
import { openRig, type PlatformName } from './harness/rig';
import { now, sleep } from './harness/replies';
import { median } from './harness/stats';
import type { WebDriver } from './harness/web-driver';

export interface ColdStartOptions {
  platform: PlatformName;
  runs: number;
  /** Idle time before the idle RSS is read, ms. */
  idleMs: number;
}

export interface ColdStartResult {
  platform: PlatformName;
  /** /readyz listed the Telegram adapter as connected (the build wires it). */
  telegramConnected: boolean;
  /** The chat adapters /readyz listed as connected in the first run (e.g. ['telegram', 'web']). */
  adapters: string[];
  runs: number;
  readyMs: number[];
  listeningMs: number[];
  idleRssBytes: number[];
  medianReadyMs: number;
  /** The fastest start: what the machine does when nothing else competes for it. */
  minReadyMs: number;
  medianIdleRssBytes: number;
}

export async function runColdStart(o: ColdStartOptions): Promise<ColdStartResult> {
  const ready: number[] = [];
  const listening: number[] = [];
  const idle: number[] = [];
  let adapters: string[] = [];
  for (let i = 0; i < o.runs; i++) {
    const rig = await openRig(o.platform);
    try {
      if (i === 0) adapters = await connectedAdapters(rig.gw.url);
      ready.push(rig.gw.readyMs);
      listening.push(rig.gw.listeningMs);
      await sleep(o.idleMs);
      idle.push((await rig.gw.sample()).rssBytes);
    } finally {
      await rig.close();
    }
  }
  return { platform: o.platform, telegramConnected: adapters.includes('telegram'), adapters, runs: o.runs, readyMs: ready, listeningMs: listening, idleRssBytes: idle, medianReadyMs: median(ready), minReadyMs: Math.min(...ready), medianIdleRssBytes: median(idle) };
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
  /** Idle time before each RSS reading, ms. */
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

async function readMetrics(web: WebDriver): Promise<{ finished: number; heap: number }> {
  const res = await web.request('GET', '/metrics');
  let finished = 0;
  for (const m of res.body.matchAll(/^\S*tasks_finished_total\{[^}]*\}\s+(\d+)/gm)) finished += Number(m[1]);
  const heap = Number(/^\S*nodejs_heap_size_used_bytes\s+(\d+)/m.exec(res.body)?.[1] ?? NaN);
  return { finished, heap };
}

export async function runSessions(o: SessionsOptions): Promise<SessionsResult> {
  const rig = await openRig('web');
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
    await create(0, o.warm);
    await sleep(o.settleMs);
    const before = await rig.gw.sample();
    const heapBefore = (await readMetrics(web)).heap;
    const t0 = now();
    created = 0;
    await create(o.warm, o.sessions);
    const seconds = (now() - t0) / 1000;
    const afterCreate = await rig.gw.sample();
    if (created < o.sessions) throw new Error(`sessions: only ${created} of ${o.sessions} conversations were created before the deadline`);
    await sleep(o.settleMs);
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
