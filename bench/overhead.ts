/**
 * Gateway overhead (gateway.md §11): for `messages` user messages, one at a time across `chats` DMs, the time
 * from the inbound event's delivery to the gateway (the fake getUpdates answer; on the web path, the POST)
 * to its first outbound platform call (typing), and — with a model that answers instantly — to the final,
 * complete reply. One warm-up message per chat first (session creation is not the steady state).
 */
import { chatKeyOf } from './harness/platform';
import { openRig, type PlatformName } from './harness/rig';
import { deadlineSleep, now, sleep } from './harness/replies';
import { summarize, type Summary } from './harness/stats';

export interface OverheadOptions {
  platform: PlatformName;
  messages: number;
  /** DMs the messages rotate through (Telegram allows ~1 msg/s per chat). */
  chats: number;
  /** Pause after each completed reply, ms. */
  gapMs?: number;
  /** Give up on one reply after this long. */
  replyTimeoutMs?: number;
  /** Whole-scenario deadline. */
  deadlineMs?: number;
}

export interface OverheadResult {
  platform: PlatformName;
  messages: number;
  completed: number;
  firstOutbound: Summary;
  /** Most frequent kind of first outbound call (typing expected). */
  firstOutboundKind: string;
  toComplete: Summary;
  /** The model's answer fully sent → complete reply visible. */
  modelDoneToComplete: Summary;
}

const REPLY_TOKENS = 5;

export async function runOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const rig = await openRig(o.platform);
  const gap = o.gapMs ?? 40;
  const replyTimeout = o.replyTimeoutMs ?? 10_000;
  const deadline = now() + (o.deadlineMs ?? 120_000);
  const first: number[] = [];
  const complete: number[] = [];
  const afterModel: number[] = [];
  const kinds = new Map<string, number>();
  let completed = 0;
  try {
    const total = o.chats + o.messages;
    for (let i = 0; i < total && now() < deadline; i++) {
      const warm = i < o.chats;
      const chat = (i % o.chats) + 1;
      const id = `ov${i}`;
      rig.plans.set(id, { tokens: REPLY_TOKENS, tokensPerSecond: 0 });
      const w = rig.observer.watch(chatKeyOf(chat), { tokens: REPLY_TOKENS });
      await rig.driver.send(chat, `bench:${id} how are you?`);
      await Promise.race([w.done, deadlineSleep(replyTimeout)]);
      if (w.completeAt === undefined) throw new Error(`overhead: reply ${id} did not complete within ${replyTimeout} ms`);
      if (!warm) {
        completed++;
        const rec = rig.model.records.get(id);
        if (w.inboundAt !== undefined && w.firstOutAt !== undefined) first.push(w.firstOutAt - w.inboundAt);
        if (w.inboundAt !== undefined) complete.push(w.completeAt - w.inboundAt);
        if (rec?.endAt !== undefined) afterModel.push(w.completeAt - rec.endAt);
        kinds.set(w.firstOutKind ?? '?', (kinds.get(w.firstOutKind ?? '?') ?? 0) + 1);
      }
      await sleep(gap);
    }
  } finally {
    await rig.close();
  }
  const firstKind = [...kinds.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'n/a';
  return {
    platform: o.platform,
    messages: o.messages,
    completed,
    firstOutbound: summarize(first),
    firstOutboundKind: firstKind,
    toComplete: summarize(complete),
    modelDoneToComplete: summarize(afterModel),
  };
}
