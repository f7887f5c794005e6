/**
 * RateGovernor: pacing, final priority, spare-token use, live skips, pauses, and a simulated hour of 100 chats
 * within budget with finals never starved.
 */
import type { RateLimit, RatePriority, RateScope } from '../../../src/adapters/contract/rate';
import { RateGovernor, type Grant } from '../../../src/adapters/render/rate-governor';
import { EPS } from '../../../src/adapters/render/token-bucket';
import { FakeClock } from '../../helpers/fake-clock';

const scope = (key: string, limit: RateLimit, level: RateScope['level'] = 'chat'): RateScope => ({ key, limit, level });

/** Replays grant times against an ideal token bucket: every grant must find a whole token. */
function respectsBucket(times: number[], limit: RateLimit): boolean {
  let tokens = limit.burst;
  let last = times[0] ?? 0;
  for (const t of times) {
    tokens = Math.min(limit.burst, tokens + ((t - last) * limit.count) / limit.perMs);
    last = t;
    if (tokens < 1 - 1e-6) return false;
    tokens -= 1;
  }
  return true;
}

/** Most grants in any window of `windowMs`. */
function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi] - times[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe('rate governor', () => {
  it('grants at once while tokens last, then paces at the refill rate', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const s = [scope('chat', { count: 1, perMs: 1000, burst: 2 })];
    const times: number[] = [];
    const all = Array.from({ length: 5 }, () => g.acquire(s, { priority: 'live' }).then(() => times.push(clock.now() - start)));
    const start = clock.now();
    await clock.settle(Promise.all(all));
    expect(times).toEqual([0, 0, 1000, 2000, 3000]);
  });

  it('gives each of several instances its share of account budgets, and whole chat budgets', async () => {
    const clock = new FakeClock();
    let sharers = 2;
    const g = new RateGovernor(clock, { sharers: () => sharers });
    const account = scope('bot', { count: 4, perMs: 1000, burst: 4 }, 'account');
    const times = (scopes: RateScope[], n: number) => {
      const start = clock.now();
      const out: number[] = [];
      return clock.settle(Promise.all(Array.from({ length: n }, () => g.acquire(scopes, { priority: 'final' }).then(() => out.push(clock.now() - start))))).then(() => out);
    };
    // Two instances on one bot: 2 at once, then 2/s each, so together they stay within the bot's 4/s.
    expect(await times([account], 4)).toEqual([0, 0, 500, 1000]);
    await clock.advance(10_000);
    expect(await times([scope('chat-1', { count: 2, perMs: 1000, burst: 2 })], 3)).toEqual([0, 0, 500]);
    // A peer gone: the whole budget again.
    sharers = 1;
    await clock.advance(10_000);
    expect(await times([account], 5)).toEqual([0, 0, 0, 0, 250]);
  });

  it('serves finals before live requests that queued earlier', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const s = [scope('chat', { count: 1, perMs: 1000, burst: 1 })];
    await g.acquire(s, { priority: 'live' }); // drain the bucket
    const order: string[] = [];
    const lives = [1, 2, 3].map((i) => g.acquire(s, { priority: 'live' }).then(() => order.push(`live${i}`)));
    const fin = g.acquire(s, { priority: 'final' }).then(() => order.push('final'));
    await clock.settle(Promise.all([...lives, fin]));
    expect(order).toEqual(['final', 'live1', 'live2', 'live3']);
  });

  it('lets live requests use spare tokens of shared buckets without delaying a waiting final', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const global = scope('bot', { count: 10, perMs: 1000, burst: 10 }, 'account');
    const chatA = scope('chat:A', { count: 1, perMs: 1000, burst: 1 });
    const chatB = scope('chat:B', { count: 100, perMs: 1000, burst: 100 });
    g.pause([chatA], 5000);
    const t0 = clock.now();
    let finalAt = 0;
    const fin = g.acquire([global, chatA], { priority: 'final' }).then(() => (finalAt = clock.now() - t0));
    let liveGrants = 0;
    const lives: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) lives.push(g.acquire([global, chatB], { priority: 'live', maxWaitMs: 60_000 }).then((r) => r.granted && liveGrants++));
    await clock.settle(Promise.all([fin, ...lives]));
    expect(finalAt).toBe(5000);
    // the other chat kept going on the global budget meanwhile (10 burst + ~10/s, less the final's reserved token)
    expect(liveGrants).toBe(60);
  });

  it('tells live requests to skip when the wait would be too long', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const s = [scope('chat', { count: 1, perMs: 3000, burst: 1 })];
    expect(await g.acquire(s, { priority: 'live', maxWaitMs: 1000 })).toEqual({ granted: true, waitedMs: 0 });
    const r = await g.acquire(s, { priority: 'live', maxWaitMs: 1000 });
    expect(r).toEqual({ granted: false, reason: 'wait_too_long', retryAt: clock.now() + 3000 });
    const fin = await clock.settle(g.acquire(s, { priority: 'final' }));
    expect(fin).toEqual({ granted: true, waitedMs: 3000 });
  });

  it('plans a backlog of live requests in line: those whose place is past their wait learn at the first token', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const s = [scope('bot', { count: 1, perMs: 1000, burst: 1 }, 'account')];
    const t0 = clock.now();
    const settled: { i: number; at: number; grant: Grant }[] = [];
    const all = Array.from({ length: 8 }, (_, i) =>
      g.acquire(s, { priority: 'live', maxWaitMs: 3000 }).then((grant) => void settled.push({ i, at: clock.now() - t0, grant })),
    );
    await clock.settle(Promise.all(all));
    const byIndex = settled.sort((a, b) => a.i - b.i);
    // one token now, then one a second: the 2nd–4th wait for theirs in arrival order...
    expect(byIndex.slice(0, 4).map((x) => [x.at, x.grant.granted])).toEqual([[0, true], [1000, true], [2000, true], [3000, true]]);
    // ...and the rest learn when the backlog is first planned, at the first token, not each at its deadline
    // (their places are not held for them: the first free one is at 4 s for each)
    expect(byIndex.slice(4).map((x) => [x.at, x.grant])).toEqual(
      [4, 5, 6, 7].map(() => [1000, { granted: false, reason: 'wait_too_long', retryAt: t0 + 4000 }]),
    );
  });

  it('pauses a bucket for retry_after, and aborted waits resolve at once', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const s = [scope('ws:chat.update', { count: 45, perMs: 60_000, burst: 5 }, 'method')];
    g.pause(s, 7000);
    const t0 = clock.now();
    const fin = await clock.settle(g.acquire(s, { priority: 'final' }));
    expect(fin.granted && clock.now() - t0).toBe(7000);
    g.pause(s, 30_000);
    const ac = new AbortController();
    const p = g.acquire(s, { priority: 'live', signal: ac.signal });
    ac.abort();
    expect(await p).toMatchObject({ granted: false, reason: 'aborted' });
    expect(g.stats()).toEqual([{ key: 'ws:chat.update', tokens: 0, capacity: 5, pausedUntil: clock.now() + 30_000 }]);
    expect(g.waiting).toBe(0);
  });

  it('a retry_after shorter than a slow bucket refill waits only the retry_after (a Telegram group 429)', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const group = scope('tg:group', { count: 20, perMs: 60_000, burst: 20 });
    const chat = scope('tg:chat', { count: 1, perMs: 1000, burst: 3 });
    g.pause([group, chat], 1000);
    const t0 = clock.now();
    const first = await clock.settle(g.acquire([group, chat], { priority: 'final' }));
    expect(first.granted && clock.now() - t0).toBe(1000);
    // after the pause the group bucket refills at its own pace again, from the one token it gave
    const second = await clock.settle(g.acquire([group, chat], { priority: 'final' }));
    expect(second.granted && clock.now() - t0).toBe(4000);
  });

  it('lets a final jump a backlog of live edits in its chat', async () => {
    const clock = new FakeClock();
    const g = new RateGovernor(clock);
    const perChat = { count: 18, perMs: 60_000, burst: 2 };
    const t0 = clock.now();
    const waits: number[] = [];
    const scopesOf = (n: number) => [scope('bot', { count: 30, perMs: 1000, burst: 30 }, 'account'), scope(`chat:${n}`, perChat)];
    async function liveWriter(n: number): Promise<void> {
      while (clock.now() - t0 < 600_000) {
        await g.acquire(scopesOf(n), { priority: 'live', maxWaitMs: 60_000 });
        await new Promise<void>((res) => clock.setTimeout(res, 100));
      }
    }
    async function finals(n: number): Promise<void> {
      while (clock.now() - t0 < 590_000) {
        await new Promise<void>((res) => clock.setTimeout(res, 20_000 + n * 100));
        const asked = clock.now();
        await g.acquire(scopesOf(n), { priority: 'final' });
        waits.push(clock.now() - asked);
      }
    }
    // four writers per chat keep a queue of live edits waiting for every chat token
    const chats = Array.from({ length: 10 }, (_, n) => [finals(n), liveWriter(n), liveWriter(n), liveWriter(n), liveWriter(n)]).flat();
    await clock.settle(Promise.all(chats));
    expect(waits.length).toBeGreaterThan(200);
    // a token every 3.34 s: a final waits for the next one, never behind the four queued live edits
    expect(Math.max(...waits)).toBeLessThanOrEqual(Math.ceil(60_000 / 18) + 1);
  });

  it('keeps a simulated hour of 100 chats within every budget, and finals are never starved', async () => {
    const clock = new FakeClock();
    const limits = {
      account: { count: 30, perMs: 1000, burst: 30 },
      chat: { count: 18, perMs: 60_000, burst: 2 }, // ≤ 20 per any minute, like a Telegram group
    };
    const grants = new Map<string, number[]>();
    const g = new RateGovernor(clock, {
      onGrant: (keys, at) => {
        for (const k of keys) (grants.get(k) ?? grants.set(k, []).get(k)!).push(at);
      },
    });
    const t0 = clock.now();
    const hour = 3_600_000;
    const finalWaits: number[] = [];
    let liveSkips = 0;
    let liveGrants = 0;

    async function chat(n: number): Promise<void> {
      const scopes = [scope('bot', limits.account, 'account'), scope(`chat:${n}`, limits.chat)];
      // each chat: replies of 20–60 s streaming with a live edit attempt every 3 s (group pacing), then one final
      let t = clock.now();
      while (t - t0 < hour - 120_000) {
        const replyMs = 20_000 + ((n * 7919 + t) % 40_000);
        const end = clock.now() + replyMs;
        while (clock.now() < end) {
          const r: Grant = await g.acquire(scopes, { priority: 'live', maxWaitMs: 2000 });
          if (r.granted) liveGrants++;
          else liveSkips++;
          await new Promise<void>((res) => clock.setTimeout(res, 3000));
        }
        const asked = clock.now();
        const f = await g.acquire(scopes, { priority: 'final' as RatePriority });
        expect(f.granted).toBe(true);
        finalWaits.push(clock.now() - asked);
        await new Promise<void>((res) => clock.setTimeout(res, 5000 + (n % 13) * 1000));
        t = clock.now();
      }
    }
    // a second writer per chat (another live message) keeps every chat bucket contended
    async function noise(n: number): Promise<void> {
      const scopes = [scope('bot', limits.account, 'account'), scope(`chat:${n}`, limits.chat)];
      while (clock.now() - t0 < hour) {
        await g.acquire(scopes, { priority: 'live', maxWaitMs: 10_000 });
        await new Promise<void>((res) => clock.setTimeout(res, 500));
      }
    }
    await clock.settle(Promise.all(Array.from({ length: 100 }, (_, n) => [chat(n), noise(n)]).flat()), hour + 600_000);

    expect(respectsBucket(grants.get('bot')!, limits.account)).toBe(true);
    expect(maxInWindow(grants.get('bot')!, 1000)).toBeLessThanOrEqual(30 + 30);
    for (let n = 0; n < 100; n++) {
      const times = grants.get(`chat:${n}`)!;
      expect(respectsBucket(times, limits.chat)).toBe(true);
      expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(20);
    }
    // the chat budget allows ~1 request per 3.3 s and two writers compete for it, so live edits queue and
    // skip — but every final went through, jumping the queue: at most about one chat token interval
    expect(finalWaits.length).toBeGreaterThan(100 * 20);
    expect(Math.max(...finalWaits)).toBeLessThanOrEqual(2 * Math.ceil(60_000 / 18));
    expect(liveGrants).toBeGreaterThan(0);
    expect(liveSkips).toBeGreaterThan(0);
    expect(EPS).toBeLessThanOrEqual(1e-6);
  }, 60_000);
});
