/**
 * Smoke test of the benchmark suite: `runBench({quick: true})` runs every scenario in its reduced size
 * against the built gateway and renders the Markdown report with the header and one row per measurement
 * (Telegram rows are either measured or explicitly marked blocked; with Telegram, the Discord row set next
 * to them; start-up rows for the web playground alone and for all three fakes). It checks shape, never timings.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { runBench } from '../../bench/run';
import { reportRows } from '../../bench/report';

const CLI = resolve(__dirname, '../../dist/src/gateway/cli.js');

const EXPECTED_ROWS: RegExp[] = [
  /^inbound → first outbound call$/,
  /^inbound → complete reply \(instant model\)$/,
  /^model done → complete reply \(instant model\)$/,
  /^stream: platform calls \(DM\)$/,
  /^stream: token → visible \(DM\)$/,
  /^stream: model done → complete \(DM\)$/,
  /^stream: platform calls \(group\)$/,
  /^stream: token → visible \(group\)$/,
  /^stream: model done → complete \(group\)$/,
  /^scale \(\d+ chats\): 429s received$/,
  /^scale \(\d+ chats\): inbound → model request$/,
  /^scale \(\d+ chats\): gateway CPU per new conversation$/,
  /^scale \(\d+ chats\): platform calls$/,
  /^scale \(\d+ chats\): gateway max RSS$/,
  /^scale \(\d+ chats\): gateway CPU seconds$/,
  /^scale \(\d+ chats\): p99 added latency$/,
  /^\d+ new DMs: median reply vs model stream$/,
  /^\d+ new DMs, fresh process: median reply vs model stream$/,
  /^\d+ DMs, existing sessions: median reply vs model stream$/,
  /^\d+ DMs: peak RSS$/,
  /^Slack: inbound → first outbound call$/,
  /^Slack: stream: platform calls per reply \(DM thread\)$/,
  /^Slack: stream: platform calls per reply \(channel thread\)$/,
  /^Slack: \d+ threads at once: 429s received$/,
  /^cold start → ready \(web playground only\)$/,
  /^RSS 1 s after ready \(web playground only\)$/,
  /^idle RSS, settled \(web playground only\)$/,
  /^cold start → ready \(Telegram \+ Slack \+ Discord \(fakes\)\)$/,
  /^first getUpdates after start \(Telegram \+ Slack \+ Discord \(fakes\)\)$/,
  /^RSS 1 s after ready \(Telegram \+ Slack \+ Discord \(fakes\)\)$/,
  /^idle RSS, settled \(Telegram \+ Slack \+ Discord \(fakes\)\)$/,
  /^RSS per idle session \(opened, no Task\)$/,
  /^RSS per idle session \(after one exchange\)$/,
  /^resume of a 10,000-message trace$/,
  /^engine overhead per message$/,
  /^trace write throughput$/,
];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does it in pretest)`);
});

describe('npm run bench -- --quick', () => {
  it('runs every scenario and prints the report table with the expected rows', async () => {
    const { results, markdown } = await runBench({ quick: true });

    expect(results.issues.filter((i) => i.kind === 'error')).toEqual([]);
    expect(markdown).toMatch(/^### penguin-gateway benchmark \(quick\)$/m);
    expect(markdown).toMatch(/^- Machine: .+ · \d+ cores · [\d.]+ GiB RAM/m);
    expect(markdown).toMatch(/^- Node: v\d+\.\d+\.\d+$/m);
    expect(markdown).toContain('| Area | Measurement | Setup | Result | Goal | Verdict |');

    const rows = reportRows(results);
    for (const want of EXPECTED_ROWS) {
      const matching = rows.filter((r) => want.test(r.name));
      expect({ row: want.source, found: matching.length > 0 }).toEqual({ row: want.source, found: true });
      for (const r of matching) expect(markdown).toContain(`| ${r.area} | ${r.name} |`);
    }
    // Measured rows carry a result; rows that could not be measured say why (blocked), never a made-up number.
    for (const r of rows) {
      if (r.verdict === 'blocked') expect(results.issues.some((i) => i.kind === 'blocked')).toBe(true);
      else expect(r.result).not.toMatch(/n\/a|NaN/);
    }
    if (results.platform !== 'telegram') {
      expect(rows.filter((r) => r.name.startsWith('scale (')).every((r) => r.verdict === 'blocked')).toBe(true);
    } else {
      // next to Telegram's, the overhead and streaming rows measured against the fake Discord
      const discord = rows.filter((r) => r.name.endsWith(' (Discord)')).map((r) => r.name.replace(/ \(Discord\)$/, ''));
      expect(discord).toEqual(rows.filter((r) => r.area === 'Overhead' || r.area === 'Streaming').map((r) => r.name).filter((n) => !n.endsWith(' (Discord)')));
    }
  }, 90_000);
});
