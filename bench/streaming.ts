/**
 * Streaming economy (gateway.md §4, §11): one reply streamed at `tokensPerSecond` for `seconds` into a DM and,
 * at the same time, into a group. For each: the platform calls the reply cost (live updates and finals), the
 * delay from each token leaving the model to its first appearance in any platform call (the user sees it),
 * against the platform's minimum interval for live updates (the floor), and model finished → complete text.
 */
import { chatKeyOf } from './harness/platform';
import { openRig, type PlatformName } from './harness/rig';
import { waitAll } from './harness/replies';
import { summarize, type Summary } from './harness/stats';
import type { OutKind } from './harness/platform';

export interface StreamingOptions {
  platform: PlatformName;
  tokensPerSecond: number;
  seconds: number;
  /** Also stream into a group chat (slower edit interval). Default true. */
  group?: boolean;
}

export interface StreamingChatResult {
  chat: 'dm' | 'group';
  tokens: number;
  /** The model's stream duration, ms (first to last token). */
  streamMs: number;
  /** Calls for this reply by kind (typing included). */
  calls: Record<OutKind, number>;
  /** Live updates + final messages (typing excluded). */
  contentCalls: number;
  /** 429 answers this reply got. */
  rateLimited: number;
  /** Live updates (content calls before the finished reply) and the smallest gap between two of them. */
  liveUpdates: number;
  minLiveGapMs: number;
  /** Most live updates one per interval allows from the reply's first content call to its completion. */
  liveAtFloor: number;
  intervalMs: number;
  tokenDelay: Summary;
  /** Tokens never seen in any call (should be 0). */
  tokensMissing: number;
  modelDoneToComplete: number;
  /** First content call → complete. */
  replyMs: number;
  completed: boolean;
}

export interface StreamingResult {
  platform: PlatformName;
  tokensPerSecond: number;
  seconds: number;
  chats: StreamingChatResult[];
}

export async function runStreaming(o: StreamingOptions): Promise<StreamingResult> {
  const rig = await openRig(o.platform);
  const tokens = Math.max(1, Math.round(o.tokensPerSecond * o.seconds));
  const targets: { chat: 'dm' | 'group'; group: boolean }[] = [{ chat: 'dm', group: false }];
  if (o.group !== false) targets.push({ chat: 'group', group: true });
  const out: StreamingChatResult[] = [];
  try {
    const runs = targets.map((t, i) => {
      const id = `st${i}`;
      rig.plans.set(id, { tokens, tokensPerSecond: o.tokensPerSecond, recordTokens: true });
      const watch = rig.observer.watch(chatKeyOf(1, t.group), { tokens, trackTokens: true });
      return { ...t, id, watch };
    });
    await Promise.all(runs.map((r) => rig.driver.send(1, `bench:${r.id} tell me a long story`, { group: r.group })));
    await waitAll(runs.map((r) => r.watch), o.seconds * 1000 + 30_000);
    for (const r of runs) {
      const rec = rig.model.records.get(r.id);
      const w = r.watch;
      const delays: number[] = [];
      let missing = 0;
      for (let k = 0; k < tokens; k++) {
        const sent = rec?.tokenAt?.[k] ?? 0;
        const seen = w.tokenSeenAt?.[k] ?? 0;
        if (sent > 0 && seen > 0) delays.push(seen - sent);
        else missing++;
      }
      const interval = rig.driver.liveIntervalMs(r.group);
      const streamMs = rec?.firstTokenAt !== undefined && rec.lastTokenAt !== undefined ? rec.lastTokenAt - rec.firstTokenAt : NaN;
      out.push({
        chat: r.chat,
        tokens,
        streamMs,
        calls: { ...w.byKind },
        contentCalls: w.calls - w.byKind.typing,
        rateLimited: w.rateLimited,
        liveUpdates: w.liveAt.length,
        minLiveGapMs: w.liveAt.slice(1).reduce((m, t, i) => Math.min(m, t - w.liveAt[i]), Infinity),
        liveAtFloor: w.firstContentAt !== undefined && w.completeAt !== undefined ? Math.floor((w.completeAt - w.firstContentAt) / interval) + 1 : NaN,
        intervalMs: interval,
        tokenDelay: summarize(delays),
        tokensMissing: missing,
        modelDoneToComplete: w.completeAt !== undefined && rec?.endAt !== undefined ? w.completeAt - rec.endAt : NaN,
        replyMs: w.firstContentAt !== undefined && w.completeAt !== undefined ? w.completeAt - w.firstContentAt : NaN,
        completed: w.completeAt !== undefined,
      });
    }
  } finally {
    await rig.close();
  }
  return { platform: o.platform, tokensPerSecond: o.tokensPerSecond, seconds: o.seconds, chats: out };
}
