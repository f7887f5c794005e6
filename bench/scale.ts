/**
 * Scale (gateway.md §11): `chats` DMs write at the same moment and every reply streams at once, against a
 * platform fake that enforces Telegram's real limits. Reports the 429s the gateway received (goal 0), its
 * platform calls, the gateway's peak RSS and CPU seconds (read from /proc, from outside), and per chat the
 * reply time, the model's own stream time and the added latency (model finished → complete text visible).
 * The same scenario with 20 chats and a 300-token reply is the "20 simultaneous DMs" comparison, run on
 * first contact (each message opens a session) in a fresh process, with `primed` in a process that already
 * answered other chats (new sessions, warm code), and with `warm` on chats whose sessions already exist.
 * The cost of opening them: the gateway's CPU seconds from the moment the messages go out until the last
 * chat's model request arrives (streams that started early run meanwhile and are counted too).
 */
import { chatKeyOf, type OutKind } from './harness/platform';
import type { StreamRecord } from './harness/model-server';
import type { ProcSample } from './harness/proc';
import { openRig, type PlatformName, type Rig } from './harness/rig';
import { now, sleep, waitAll } from './harness/replies';
import { summarize, type Summary } from './harness/stats';

export interface ScaleOptions {
  platform: PlatformName;
  chats: number;
  tokens: number;
  tokensPerSecond: number;
  /** Give up waiting for replies after this long (default 180 s). */
  deadlineMs?: number;
  /**
   * Each chat first gets one instantly answered message (its session exists and is warm), then the
   * measured messages follow once everything settled: the steady state instead of first contact.
   */
  warm?: boolean;
  /**
   * Before the measured messages, this many other chats exchange one instantly answered message: the
   * measured chats are still new (each opens a session), in a gateway that has been running.
   */
  primed?: number;
  /** Quiet time after the warm-up replies, so their title calls are over (default 2.5 s). */
  warmSettleMs?: number;
}

export interface ScaleResult {
  platform: PlatformName;
  warm: boolean;
  primed: number;
  chats: number;
  tokens: number;
  tokensPerSecond: number;
  completed: number;
  rateLimited: number;
  rateLimitedByKind: Record<OutKind, number>;
  calls: number;
  callsByKind: Record<OutKind, number>;
  peakRssBytes: number;
  /** RSS right before the messages arrived. */
  startRssBytes: number;
  cpuSeconds: number;
  /** Gateway CPU seconds from the messages going out to the last chat's model request. */
  openCpuSeconds: number;
  /** Messages out → the last chat's model request, ms. */
  lastRequestMs: number;
  wallSeconds: number;
  firstOutbound: Summary;
  /** Inbound delivered → the model request arrives (session lookup or creation, context assembly). */
  toModelRequest: Summary;
  /** Inbound delivered → complete reply visible. */
  replyTime: Summary;
  /** The model's own time for the reply: request received → last chunk sent. */
  modelTime: Summary;
  /** Model finished → complete reply visible. */
  addedLatency: Summary;
}

export async function runScale(o: ScaleOptions): Promise<ScaleResult> {
  const rig = await openRig(o.platform);
  try {
    if (o.primed) await warmUp(rig, Array.from({ length: o.primed }, (_, i) => o.chats + 1 + i), o.deadlineMs ?? 180_000, o.warmSettleMs ?? 2_500);
    if (o.warm) await warmUp(rig, Array.from({ length: o.chats }, (_, i) => i + 1), o.deadlineMs ?? 180_000, o.warmSettleMs ?? 2_500);
    const ids = Array.from({ length: o.chats }, (_, i) => `sc${i}`);
    const watches = ids.map((id, i) => {
      rig.plans.set(id, { tokens: o.tokens, tokensPerSecond: o.tokensPerSecond });
      return rig.observer.watch(chatKeyOf(i + 1), { tokens: o.tokens });
    });
    const wanted = new Set(ids);
    let requested = 0;
    let lastRequest: Promise<{ at: number; sample: ProcSample }> | undefined;
    const onRequest = (rec: StreamRecord) => {
      if (!wanted.has(rec.id) || ++requested !== ids.length) return;
      const at = now();
      lastRequest = rig.gw.sample().then((sample) => ({ at, sample }));
    };
    rig.model.on('request', onRequest);
    const before = await rig.gw.sample();
    const t0 = now();
    await Promise.all(ids.map((id, i) => rig.driver.send(i + 1, `bench:${id} write me something`)));
    const completed = await waitAll(watches, o.deadlineMs ?? 180_000);
    const wall = (now() - t0) / 1000;
    rig.model.off('request', onRequest);
    const opened = await lastRequest;
    const after = await rig.gw.sample();
    const peak = await rig.gw.peak.peak();
    const totals = rig.driver.totals();
    const toModel: number[] = [];
    const first: number[] = [];
    const reply: number[] = [];
    const model: number[] = [];
    const added: number[] = [];
    ids.forEach((id, i) => {
      const w = watches[i];
      const rec = rig.model.records.get(id);
      if (w.inboundAt !== undefined && w.firstOutAt !== undefined) first.push(w.firstOutAt - w.inboundAt);
      if (w.inboundAt !== undefined && w.completeAt !== undefined) reply.push(w.completeAt - w.inboundAt);
      if (rec?.endAt !== undefined) model.push(rec.endAt - rec.requestAt);
      if (rec && w.inboundAt !== undefined) toModel.push(rec.requestAt - w.inboundAt);
      if (rec?.endAt !== undefined && w.completeAt !== undefined) added.push(w.completeAt - rec.endAt);
    });
    return {
      platform: o.platform,
      warm: !!o.warm,
      primed: o.primed ?? 0,
      chats: o.chats,
      tokens: o.tokens,
      tokensPerSecond: o.tokensPerSecond,
      completed,
      rateLimited: totals.rateLimited,
      rateLimitedByKind: totals.rateLimitedByKind,
      calls: totals.calls,
      callsByKind: totals.byKind,
      peakRssBytes: Math.max(peak, after.peakRssBytes),
      startRssBytes: before.rssBytes,
      cpuSeconds: after.cpuSeconds - before.cpuSeconds,
      openCpuSeconds: opened ? opened.sample.cpuSeconds - before.cpuSeconds : NaN,
      lastRequestMs: opened ? opened.at - t0 : NaN,
      wallSeconds: wall,
      firstOutbound: summarize(first),
      toModelRequest: summarize(toModel),
      replyTime: summarize(reply),
      modelTime: summarize(model),
      addedLatency: summarize(added),
    };
  } finally {
    await rig.close();
  }
}

async function warmUp(rig: Rig, chats: number[], timeoutMs: number, settleMs: number): Promise<void> {
  const watches = chats.map((chat) => {
    rig.plans.set(`warm${chat}`, { tokens: 2, tokensPerSecond: 0 });
    return rig.observer.watch(chatKeyOf(chat), { tokens: 2 });
  });
  await Promise.all(chats.map((chat) => rig.driver.send(chat, `bench:warm${chat} hi`)));
  const done = await waitAll(watches, timeoutMs);
  if (done < chats.length) throw new Error(`scale: only ${done} of ${chats.length} warm-up replies completed`);
  await sleep(settleMs);
}
