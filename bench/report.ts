/**
 * Renders benchmark results as the Markdown report the README quotes: a header (date, machine, Node, which
 * platform path was used, how many runs the figures are medians of) and one table row per measurement with
 * its setup, result, the goal (gateway.md §11, or the tighter one of issue 20 "Footprint and scale", marked
 * †) and a verdict (✅ meets, ❌ misses, — no goal, ⛔ blocked, ⚠️ failed to run). Row names are stable; sizes
 * live in the Setup column so quick and full runs print the same rows.
 */
import type { EngineBenchResult } from './engine-overhead';
import type { ColdStartResult, SessionsResult, StartConfigResult } from './footprint';
import type { MachineInfo } from './harness/machine';
import type { PlatformName } from './harness/rig';
import { round, type Summary } from './harness/stats';
import type { OverheadResult } from './overhead';
import type { ScaleResult } from './scale';
import type { StreamingChatResult, StreamingResult } from './streaming';
import type { TraceThroughputResult } from './trace-throughput';

export type Verdict = 'pass' | 'fail' | 'info' | 'blocked' | 'error';

export interface Row {
  area: string;
  name: string;
  setup: string;
  result: string;
  goal: string;
  verdict: Verdict;
}

export interface SectionIssue {
  section: string;
  /** 'blocked': could not be measured as specified (e.g. the Telegram adapter is not wired yet). */
  kind: 'blocked' | 'error';
  message: string;
}

export interface BenchResults {
  machine: MachineInfo;
  quick: boolean;
  /** How many full runs each figure is the median of (1: a single run). */
  runs?: number;
  /** The chat platform the platform-facing measurements used. */
  platform: PlatformName;
  telegramWired: boolean;
  seconds: number;
  coldStart?: ColdStartResult;
  overhead?: OverheadResult;
  streaming?: StreamingResult;
  scale: ScaleResult[];
  /** Planned tier sizes (for blocked rows). */
  scaleTiers: number[];
  dms: ScaleResult[];
  /** The same new DMs in a process that already answered other chats. */
  dmsPrimed: ScaleResult[];
  /** The same DMs on chats whose sessions already exist. */
  dmsWarm: ScaleResult[];
  dmChats: number;
  sessionsOpen?: SessionsResult;
  sessionsExchange?: SessionsResult;
  engine?: EngineBenchResult;
  trace?: TraceThroughputResult;
  /** The Slack row set, measured next to the main platform's (absent when Slack is the main platform). */
  slack?: { overhead?: OverheadResult; streaming?: StreamingResult; threads?: ScaleResult };
  /** The Discord row set, measured next to the main platform's (absent when Discord is the main platform). */
  discord?: { overhead?: OverheadResult; streaming?: StreamingResult };
  issues: SectionIssue[];
}

const KIND_NAME: Record<string, string> = { post: 'sends', edit: 'edits', draft: 'drafts', typing: 'typing', other: 'other calls' };

const VERDICT: Record<Verdict, string> = { pass: '✅', fail: '❌', info: '—', blocked: '⛔ blocked', error: '⚠️ failed' };

const ms = (n: number): string => (!Number.isFinite(n) ? 'n/a' : n >= 10_000 ? `${fmtInt(n / 1000)} s` : n >= 1000 ? `${round(n / 1000, 2)} s` : n >= 100 ? `${fmtInt(n)} ms` : `${round(n, 1)} ms`);
const mb = (bytes: number): string => (Number.isFinite(bytes) ? `${fmtInt(bytes / 2 ** 20)} MB` : 'n/a');
const kb = (bytes: number): string => (Number.isFinite(bytes) ? `${fmtInt(bytes / 1024)} KB` : 'n/a');
const fmtInt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const count = (n: number, noun: string): string => `${fmtInt(n)} ${noun}${n === 1 ? '' : 's'}`;
const med = (s: Summary): string => `median ${ms(s.median)} · p99 ${ms(s.p99)}`;
const check = (ok: boolean): Verdict => (ok ? 'pass' : 'fail');
const PLATFORM_LABEL: Record<PlatformName, string> = { telegram: 'Telegram (fake Bot API)', slack: 'Slack (fake Web API + signed events)', discord: 'Discord (fake platform)', web: 'web playground' };
const platformLabel = (p: PlatformName): string => PLATFORM_LABEL[p];

/** The row of a measurement that did not run: the reason is listed once under the table. */
function issueRow(r: BenchResults, section: string, area: string, name: string, goal: string): Row | undefined {
  const issue = r.issues.find((i) => i.section === section);
  if (!issue) return undefined;
  return { area, name, setup: '', result: issue.kind === 'blocked' ? `not measured: see ${section} below` : issue.message, goal, verdict: issue.kind };
}

/** A set of overhead or streaming rows: the main platform's, or the Discord set (its names end in " (Discord)"). */
interface RowSet {
  section: string;
  suffix: string;
}
const MAIN = (section: string): RowSet => ({ section, suffix: '' });
const DISCORD_SET = (section: string): RowSet => ({ section: `discord-${section}`, suffix: ' (Discord)' });

function overheadRows(r: BenchResults, o: OverheadResult | undefined, set: RowSet): Row[] {
  const names = ['inbound → first outbound call', 'inbound → complete reply (instant model)', 'model done → complete reply (instant model)'].map((n) => n + set.suffix);
  const goals = ['≤ 20 ms median', '—', '≤ 0.6 s median (DM)'];
  if (!o) return names.map((n, i) => issueRow(r, set.section, 'Overhead', n, goals[i])).filter((x): x is Row => !!x);
  const setup = `${o.completed}/${o.messages} msgs, one at a time, ${platformLabel(o.platform)}`;
  return [
    { area: 'Overhead', name: names[0], setup, result: `${med(o.firstOutbound)} (first call: ${o.firstOutboundKind})`, goal: goals[0], verdict: check(o.firstOutbound.median <= 20) },
    { area: 'Overhead', name: names[1], setup, result: med(o.toComplete), goal: goals[1], verdict: 'info' },
    { area: 'Overhead', name: names[2], setup, result: med(o.modelDoneToComplete), goal: goals[2], verdict: check(o.modelDoneToComplete.median <= 600) },
  ];
}

function streamingRows(r: BenchResults, s: StreamingResult | undefined, set: RowSet): Row[] {
  const kinds: StreamingChatResult['chat'][] = ['dm', 'group'];
  const rows: Row[] = [];
  for (const chat of kinds) {
    const label = chat === 'dm' ? 'DM' : 'group';
    const names = [`stream: platform calls (${label})`, `stream: token → visible (${label})`, `stream: model done → complete (${label})`].map((n) => n + set.suffix);
    const c = s?.chats.find((x) => x.chat === chat);
    if (!s || !c) {
      for (const n of names) {
        const row = issueRow(r, set.section, 'Streaming', n, '≤ interval + 50 ms');
        if (row) rows.push(row);
      }
      continue;
    }
    const setup = `${fmtInt(c.tokens)} tokens @ ${s.tokensPerSecond} tok/s (${round(c.streamMs / 1000, 1)} s), ${platformLabel(s.platform)}; floor ${fmtInt(c.intervalMs)} ms`;
    const k = c.calls;
    const parts = [k.draft && count(k.draft, 'draft'), k.post && count(k.post, 'send'), k.edit && count(k.edit, 'edit')].filter(Boolean).join(' + ');
    rows.push({
      area: 'Streaming', name: names[0], setup,
      result: `${c.contentCalls} (${parts || 'none'}) + ${k.typing} typing; one per interval would be ${c.liveAtFloor} in the reply's ${ms(c.replyMs)}; ${c.rateLimited} × 429`,
      goal: '0 × 429',
      verdict: check(c.rateLimited === 0),
    });
    const missing = c.tokensMissing ? `; ${c.tokensMissing} tokens never shown` : '';
    rows.push({ area: 'Streaming', name: names[1], setup, result: `${med(c.tokenDelay)} · max ${ms(c.tokenDelay.max)}${missing}`, goal: `p99 ≤ ${fmtInt(c.intervalMs + 50)} ms`, verdict: check(c.tokenDelay.p99 <= c.intervalMs + 50 && c.tokensMissing === 0) });
    rows.push({ area: 'Streaming', name: names[2], setup, result: c.completed ? ms(c.modelDoneToComplete) : 'did not complete', goal: `≤ ${fmtInt(c.intervalMs + 50)} ms`, verdict: check(c.completed && c.modelDoneToComplete <= c.intervalMs + 50) });
  }
  return rows;
}

function scaleRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  r.scaleTiers.forEach((chats) => {
    const s = r.scale.find((x) => x.chats === chats);
    const name = (what: string) => `scale (${fmtInt(chats)} chats): ${what}`;
    const whats = ['429s received', 'inbound → model request', 'gateway CPU per new conversation', 'platform calls', 'gateway max RSS', 'gateway CPU seconds', 'p99 added latency'];
    const big = chats >= 1000;
    if (!s) {
      for (const w of whats) {
        const row = issueRow(r, `scale-${chats}`, 'Scale', name(w), w === '429s received' ? '0' : '—');
        if (row) rows.push(row);
      }
      return;
    }
    const perConv = (s.openCpuSeconds * 1000) / s.chats;
    const setup = `${fmtInt(s.chats)} DMs at once × ${s.tokens} tokens @ ${s.tokensPerSecond} tok/s, ${platformLabel(s.platform)}; ${fmtInt(s.completed)}/${fmtInt(s.chats)} complete in ${round(s.wallSeconds, 1)} s`;
    const k = s.callsByKind;
    const floor = s.platform === 'telegram' ? `; floor for the last final: ${round(s.chats / 30, 1)} s at 30 msg/s per bot` : '';
    const by = Object.entries(s.rateLimitedByKind).filter(([, n]) => n > 0).map(([kind, n]) => `${n} on ${KIND_NAME[kind] ?? kind}`).join(', ');
    rows.push({ area: 'Scale', name: name(whats[0]), setup, result: `${fmtInt(s.rateLimited)}${by ? ` (${by})` : ''}`, goal: '0', verdict: check(s.rateLimited === 0 && s.completed === s.chats) });
    rows.push({ area: 'Scale', name: name(whats[1]), setup, result: `${med(s.toModelRequest)} (the last ${ms(s.lastRequestMs)} after the messages went out)`, goal: big ? '≤ 1 s median †' : '—', verdict: big ? check(s.toModelRequest.median <= 1000) : 'info' });
    rows.push({ area: 'Scale', name: name(whats[2]), setup, result: `${round(perConv, 1)} ms (${round(s.openCpuSeconds, 2)} s of CPU until the last model request)`, goal: big ? '≤ 3 ms †' : '—', verdict: big ? check(perConv <= 3) : 'info' });
    rows.push({ area: 'Scale', name: name(whats[3]), setup, result: `${fmtInt(s.calls)} (${count(k.post, 'send')}, ${count(k.edit, 'edit')}, ${count(k.draft, 'draft')}, ${fmtInt(k.typing)} typing)`, goal: '—', verdict: 'info' });
    rows.push({ area: 'Scale', name: name(whats[4]), setup, result: `${mb(s.peakRssBytes)} (${mb(s.startRssBytes)} before)`, goal: '—', verdict: 'info' });
    rows.push({ area: 'Scale', name: name(whats[5]), setup, result: `${round(s.cpuSeconds, 1)} s in ${round(s.wallSeconds, 1)} s wall (${round((s.cpuSeconds * 1000) / s.chats, 1)} ms per chat, streams and titles included)`, goal: '—', verdict: 'info' });
    rows.push({ area: 'Scale', name: name(whats[6]), setup, result: `${med(s.addedLatency)} (first call p99 ${ms(s.firstOutbound.p99)})${floor}`, goal: '—', verdict: 'info' });
  });
  return rows;
}

const medianOf = (runs: ScaleResult[], f: (s: ScaleResult) => number): number => {
  const xs = runs.map(f).sort((a, b) => a - b);
  const m = Math.floor(xs.length / 2);
  return xs.length === 0 ? NaN : xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
};

function replyRow(r: BenchResults, runs: ScaleResult[], section: string, name: string, gated = true): Row | undefined {
  const goal = gated ? '≤ +5 % †' : '—';
  if (runs.length === 0) return issueRow(r, section, 'Scale', name, goal);
  const reply = medianOf(runs, (s) => s.replyTime.median);
  const model = medianOf(runs, (s) => s.modelTime.median);
  const toModel = medianOf(runs, (s) => s.toModelRequest.median);
  const added = medianOf(runs, (s) => s.addedLatency.median);
  const extra = (reply / model - 1) * 100;
  const d0 = runs[0];
  const when = d0.warm ? 'sessions already open' : d0.primed ? `first message of each chat, in a gateway that answered ${d0.primed} other chats first` : 'first message of each chat, in a fresh gateway process';
  const setup = `${d0.chats} DMs at once × ${d0.tokens} tokens in ${round(model / 1000, 2)} s, ${when}, ${platformLabel(d0.platform)}, median of ${runs.length} runs`;
  return {
    area: 'Scale', name, setup,
    result: `${ms(reply)} vs ${ms(model)} (${extra >= 0 ? '+' : ''}${round(extra, 1)} %; inbound → model request ${ms(toModel)}, model done → complete text ${ms(added)})`,
    goal, verdict: gated ? check(extra <= 5) : 'info',
  };
}

function dmRows(r: BenchResults): Row[] {
  const n = r.dmChats;
  const rows = [
    replyRow(r, r.dmsPrimed, 'dms-primed', `${n} new DMs: median reply vs model stream`),
    replyRow(r, r.dms, 'dms', `${n} new DMs, fresh process: median reply vs model stream`, false),
    replyRow(r, r.dmsWarm, 'dms-warm', `${n} DMs, existing sessions: median reply vs model stream`),
  ];
  const peakName = `${n} DMs: peak RSS`;
  if (r.dms.length === 0) rows.push(issueRow(r, 'dms', 'Scale', peakName, '≤ 120 MB †'));
  else {
    const peak = medianOf(r.dms, (s) => s.peakRssBytes);
    rows.push({ area: 'Scale', name: peakName, setup: `the fresh-process runs above`, result: `${mb(peak)} (${mb(medianOf(r.dms, (s) => s.startRssBytes))} before)`, goal: '≤ 120 MB †', verdict: check(peak <= 120 * 2 ** 20) });
  }
  return rows.filter((x): x is Row => !!x);
}

/** Which platforms a start configuration has, and the goals of its rows. */
function startLabel(c: StartConfigResult): { what: string; rssGoal: [string, number] | undefined } {
  const set = [...c.platforms].sort().join('+');
  if (set === '') return { what: 'web playground only', rssGoal: ['≤ 60 MB †', 60] };
  if (set === 'discord+slack+telegram') return { what: 'Telegram + Slack + Discord (fakes)', rssGoal: ['≤ 70 MB †', 70] };
  return { what: c.platforms.map((p) => PLATFORM_LABEL[p]).join(' + '), rssGoal: ['≤ 90 MB', 90] };
}

const START_SETS = ['web playground only', 'Telegram + Slack + Discord (fakes)'];

function footprintRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const cold = r.coldStart;
  if (cold) {
    for (const c of cold.configs) {
      const { what, rssGoal } = startLabel(c);
      const connected = `adapters connected: ${c.adapters.map((a) => PLATFORM_LABEL[a as PlatformName] ?? a).join(' + ')}`;
      const setup = `median of ${c.runs} fresh processes; ${connected}`;
      rows.push({ area: 'Footprint', name: `cold start → ready (${what})`, setup, result: `${ms(c.medianReadyMs)}, fastest ${ms(c.minReadyMs)} (spawn → /readyz green)`, goal: '≤ 0.8 s', verdict: check(c.medianReadyMs <= 800) });
      if (c.platforms.includes('telegram')) {
        rows.push({ area: 'Footprint', name: `first getUpdates after start (${what})`, setup, result: `${ms(c.medianFirstPollMs)} (spawn → the fake Bot API receives the first getUpdates)`, goal: '≤ 0.5 s †', verdict: check(c.medianFirstPollMs <= 500) });
      }
      if (rssGoal) {
        rows.push({ area: 'Footprint', name: `RSS 1 s after ready (${what})`, setup, result: mb(c.medianIdleRssBytes), goal: '—', verdict: 'info' });
        rows.push({ area: 'Footprint', name: `idle RSS, settled (${what})`, setup: `${connected}; read ${ms(c.settledAfterMs)} after ready in the last of ${c.runs} fresh processes`, result: mb(c.settledRssBytes), goal: rssGoal[0], verdict: check(c.settledRssBytes <= rssGoal[1] * 2 ** 20) });
      }
    }
  } else {
    for (const what of START_SETS) {
      for (const [n, g] of [[`cold start → ready (${what})`, '≤ 0.8 s'], [`idle RSS, settled (${what})`, '—']]) {
        const row = issueRow(r, 'cold-start', 'Footprint', n, g);
        if (row) rows.push(row);
      }
    }
  }
  const sessRow = (s: SessionsResult | undefined, section: string, name: string, how: string, goalKb: number) => {
    const goal = `≤ ${goalKb} KB${goalKb === 20 ? '' : ' †'}`;
    if (!s) {
      const row = issueRow(r, section, 'Footprint', name, goal);
      if (row) rows.push(row);
      return;
    }
    const setup = `${fmtInt(s.created)} web conversations ${how}, all idle in memory; created at ${fmtInt(s.created / s.seconds)}/s (${round((s.cpuSeconds * 1000) / s.created, 1)} ms gateway CPU each)`;
    rows.push({ area: 'Footprint', name, setup, result: `${kb(s.rssPerSessionBytes)} RSS (${mb(s.rssBeforeBytes)} → ${mb(s.rssAfterBytes)}); heap in use ${kb(s.heapPerSessionBytes)}`, goal, verdict: check(s.rssPerSessionBytes <= goalKb * 1024) });
  };
  sessRow(r.sessionsOpen, 'sessions-open', 'RSS per idle session (opened, no Task)', 'opened by `/mode read-only`', 20);
  sessRow(r.sessionsExchange, 'sessions-exchange', 'RSS per idle session (after one exchange)', 'with one message + reply each', 40);
  const e = r.engine;
  if (e) {
    rows.push({ area: 'Footprint', name: 'resume of a 10,000-message trace', setup: `${fmtInt(e.traceRecords)} records, read + replay, median`, result: `${ms(e.resumeMs)} (replay ${ms(e.replayMs)})`, goal: '≤ 200 ms', verdict: check(e.resumeMs <= 200) });
  } else {
    const row = issueRow(r, 'engine', 'Footprint', 'resume of a 10,000-message trace', '≤ 200 ms');
    if (row) rows.push(row);
  }
  return rows;
}

function coreRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const e = r.engine;
  if (e) rows.push({ area: 'Core', name: 'engine overhead per message', setup: `${fmtInt(e.messages)}-message Task, ${e.turns} turns, median`, result: `${round(e.overheadUsPerMessage, 1)} µs traced · ${round(e.overheadNoTraceUsPerMessage, 1)} µs untraced`, goal: '—', verdict: 'info' });
  else {
    const row = issueRow(r, 'engine', 'Core', 'engine overhead per message', '—');
    if (row) rows.push(row);
  }
  const t = r.trace;
  if (t) rows.push({ area: 'Core', name: 'trace write throughput', setup: `${fmtInt(t.records)} records (${mb(t.bytes)}), TraceWriter, median`, result: `${fmtInt(t.burstRecordsPerSec)} rec/s (${round(t.burstMBPerSec, 1)} MB/s) queued · ${fmtInt(t.awaitedRecordsPerSec)} rec/s (${round(t.awaitedMBPerSec, 1)} MB/s) awaited one by one`, goal: '—', verdict: 'info' });
  else {
    const row = issueRow(r, 'trace', 'Core', 'trace write throughput', '—');
    if (row) rows.push(row);
  }
  return rows;
}

/** The Slack rows next to the main platform's: overhead, the calls of one streamed thread reply, threads at once. */
function slackRows(r: BenchResults): Row[] {
  const s = r.slack;
  if (!s) return [];
  const rows: Row[] = [];
  const o = s.overhead;
  if (o) {
    const setup = `${o.completed}/${o.messages} msgs, one at a time, ${platformLabel('slack')}`;
    rows.push({ area: 'Slack', name: 'Slack: inbound → first outbound call', setup, result: `${med(o.firstOutbound)} (first call: ${o.firstOutboundKind})`, goal: '≤ 20 ms median', verdict: check(o.firstOutbound.median <= 20) });
    rows.push({ area: 'Slack', name: 'Slack: model done → complete reply (instant model)', setup, result: med(o.modelDoneToComplete), goal: '—', verdict: 'info' });
  } else rows.push(...[issueRow(r, 'slack-overhead', 'Slack', 'Slack: inbound → first outbound call', '≤ 20 ms median')].filter((x): x is Row => !!x));
  for (const c of s.streaming?.chats ?? []) {
    const where = c.chat === 'dm' ? 'DM thread' : 'channel thread';
    const setup = `${fmtInt(c.tokens)} tokens @ ${s.streaming!.tokensPerSecond} tok/s (${round(c.streamMs / 1000, 1)} s), ${platformLabel('slack')}; floor ${fmtInt(c.intervalMs)} ms`;
    const kinds = Object.entries(c.calls).filter(([k, n]) => n > 0 && k !== 'typing').map(([k, n]) => `${n} ${KIND_NAME[k] ?? k}`).join(' + ');
    rows.push({ area: 'Slack', name: `Slack: stream: platform calls per reply (${where})`, setup, result: `${c.contentCalls} (${kinds}) + ${c.calls.typing} typing; ${fmtInt(c.rateLimited)} × 429`, goal: '0 × 429', verdict: check(c.rateLimited === 0 && c.completed) });
    rows.push({ area: 'Slack', name: `Slack: stream: model done → complete (${where})`, setup, result: c.completed ? ms(c.modelDoneToComplete) : 'did not complete', goal: '—', verdict: 'info' });
  }
  if (!s.streaming) rows.push(...[issueRow(r, 'slack-streaming', 'Slack', 'Slack: stream: platform calls per reply (DM thread)', '0 × 429')].filter((x): x is Row => !!x));
  const t = s.threads;
  if (t) {
    const setup = `${fmtInt(t.chats)} DM threads at once × ${t.tokens} tokens @ ${round(t.tokensPerSecond, 1)} tok/s, one workspace, ${platformLabel('slack')}; ${fmtInt(t.completed)}/${fmtInt(t.chats)} complete in ${round(t.wallSeconds, 1)} s`;
    const k = t.callsByKind;
    rows.push({ area: 'Slack', name: `Slack: ${t.chats} threads at once: 429s received`, setup, result: fmtInt(t.rateLimited), goal: '0', verdict: check(t.rateLimited === 0 && t.completed === t.chats) });
    rows.push({ area: 'Slack', name: `Slack: ${t.chats} threads at once: platform calls`, setup, result: `${fmtInt(t.calls)} (${count(k.post, 'post')}, ${count(k.edit, 'update')}, ${fmtInt(k.typing)} typing)`, goal: '—', verdict: 'info' });
    rows.push({ area: 'Slack', name: `Slack: ${t.chats} threads at once: added latency`, setup, result: med(t.addedLatency), goal: '—', verdict: 'info' });
  } else rows.push(...[issueRow(r, 'slack-threads', 'Slack', 'Slack: threads at once: 429s received', '0')].filter((x): x is Row => !!x));
  return rows;
}

/** The Discord set, when it was planned (it ran, or its sections left an issue). */
function discordRows(r: BenchResults): Row[] {
  const planned = r.discord !== undefined || r.issues.some((i) => i.section.startsWith('discord-'));
  if (!planned) return [];
  return [...overheadRows(r, r.discord?.overhead, DISCORD_SET('overhead')), ...streamingRows(r, r.discord?.streaming, DISCORD_SET('streaming'))];
}

export function reportRows(r: BenchResults): Row[] {
  return [
    ...overheadRows(r, r.overhead, MAIN('overhead')), ...streamingRows(r, r.streaming, MAIN('streaming')), ...discordRows(r),
    ...scaleRows(r), ...dmRows(r), ...slackRows(r), ...footprintRows(r), ...coreRows(r),
  ];
}

const PLATFORM_PATH: Record<PlatformName, string> = {
  slack: "fake Slack on 127.0.0.1 enforcing Slack's per-method workspace limits (429 + Retry-After)",
  telegram: 'fake Telegram Bot API on 127.0.0.1 enforcing 1 msg/s per chat and 30 msg/s per bot (429 + retry_after)',
  discord: 'fake Discord (REST + gateway websocket) on 127.0.0.1 enforcing 5 writes per 5 s per channel and 50 req/s per bot (429 + retry_after)',
  web: 'web playground (the Telegram adapter is not wired into this build, so Telegram measurements are marked blocked)',
};

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderReport(r: BenchResults): string {
  const m = r.machine;
  const lines = [
    `### penguin-gateway benchmark${r.quick ? ' (quick)' : ''}`,
    '',
    `- Date: ${m.date} · duration ${Math.round(r.seconds)} s${(r.runs ?? 1) > 1 ? ` · every figure is the median of ${r.runs} full runs` : ''}`,
    `- Machine: ${m.cpu} · ${m.cores} cores · ${m.ramGiB} GiB RAM · ${m.os} · load average ${m.loadAvg1m} at start`,
    `- Node: ${m.node}`,
    `- Platform path: ${PLATFORM_PATH[r.platform]}${r.discord ? `; the rows marked (Discord): ${PLATFORM_PATH.discord}` : ''}; fake OpenAI-compatible model streaming on 127.0.0.1`,
    ...(r.slack ? ["- Slack rows: the fake Slack on 127.0.0.1 with Slack's per-method workspace limits (chat.update 50/min, stream start/stop 20/min, appends 100/min; 429 + Retry-After), events signed and delivered over HTTP"] : []),
    '- The gateway is the built CLI (`node dist/src/gateway/cli.js start`) in a fresh process and temp home per scenario, measured from outside',
    '',
    '- Goals are those of gateway.md §11; † marks the tighter goals of issue 20 ("Footprint and scale")',
    '',
    '| Area | Measurement | Setup | Result | Goal | Verdict |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of reportRows(r)) lines.push(`| ${row.area} | ${cell(row.name)} | ${cell(row.setup)} | ${cell(row.result)} | ${cell(row.goal)} | ${VERDICT[row.verdict]} |`);
  const notes = r.issues.map((i) => `- ${i.kind === 'blocked' ? '⛔' : '⚠️'} ${i.section}: ${i.message}`);
  if (notes.length) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}
