/**
 * One request of a Task (engine.md §2.3): `request_begin`, the model stream, each complete tool_call
 * approved once and in order, allowed calls executed concurrently without holding up the model stream,
 * `request_end` as soon as the model stream ends (tools may still be running), all of it merged into one
 * queue and handed to the caller in arrival order. Every committed call ends with exactly one output:
 * real, refused (`aborted`), or `[tool error] …` (`failed`) when the Environment breaks its contract.
 */
import * as b from '../omnimessage/builders';
import { isPayload } from '../omnimessage/guards';
import type {
  ApproveFn, EnvironmentInterface, LLMInterface, LLMOutcome, ThinkingLevel, ToolCallMessage,
} from '../interfaces';
import type { OmniMessage, RetryDetail, StopReason } from '../omnimessage/types';
import { refusalText, type ApprovalVerdict } from './approval';
import type { TurnRecord } from './carry-over';
import { raceAbort } from './clock';
import { MergeQueue, type Producer } from './merge-queue';
import { normalizeOutcome } from './reconnect';

export interface TurnContext {
  llm: LLMInterface;
  environment: EnvironmentInterface;
  signal: AbortSignal;
  thinkingLevel?: ThinkingLevel;
  /** Verdict for one call; never throws. */
  decide(toolCall: ToolCallMessage): Promise<ApprovalVerdict>;
  /** The approve callback tools pass on to subagents. */
  passDownApprove?: ApproveFn;
  /** The token_usage to stream for the model's one (session totals are the engine's). */
  onUsage(msg: OmniMessage): OmniMessage;
  /** attempt / retry_in_ms / error_message for this attempt's request_end. */
  endDetail(outcome: LLMOutcome): RetryDetail;
}

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface RunningTurn {
  /** Drain with `take()` / `next()` until null. */
  queue: MergeQueue;
  /** Settles when the model driver finished (never rejects). */
  done: Promise<void>;
}

/** Starts the request; the caller consumes the merged queue (one consumer, arrival order). */
export function startTurn(rec: TurnRecord, ctx: TurnContext): RunningTurn {
  const queue = new MergeQueue();
  const driver = queue.open();
  const done = driveModel(rec, ctx, queue, driver).finally(() => driver.close());
  return { queue, done };
}

async function driveModel(rec: TurnRecord, ctx: TurnContext, queue: MergeQueue, driver: Producer): Promise<void> {
  driver.push(b.requestBegin());
  let outcome: LLMOutcome;
  const seen = new Set<string>();
  try {
    const gen = ctx.llm.streamGenerate({
      newMessages: rec.input,
      signal: ctx.signal,
      ...(ctx.thinkingLevel !== undefined ? { thinkingLevel: ctx.thinkingLevel } : {}),
    });
    for (;;) {
      const r = await gen.next();
      if (r.done) {
        outcome = normalizeOutcome(r.value);
        break;
      }
      const msg = isPayload(r.value, 'token_usage') ? ctx.onUsage(r.value) : r.value;
      driver.push(msg);
      if (msg.type !== 'model_msg') continue;
      const p = msg.payload;
      if (p.type === 'thinking' || (p.type === 'text' && p.role === 'assistant')) {
        rec.produced.push(msg);
        continue;
      }
      if (p.type !== 'tool_call') continue;
      rec.produced.push(msg);
      // A non-completed tool_call only closes an interrupted stream: never approved, run or paired.
      if ((p.stop_reason ?? 'completed') !== 'completed' || seen.has(p.tool_call_id)) continue;
      seen.add(p.tool_call_id);
      const call = msg as ToolCallMessage;
      rec.calls.push(call);
      if (ctx.signal.aborted) continue;
      const verdict = await raceAbort(ctx.decide(call), ctx.signal);
      if (!verdict || ctx.signal.aborted) continue;
      driver.push(b.approvalDecision(verdict.decision, p.tool_call_id, verdict.policyRule));
      if (verdict.decision !== 'allow') {
        const out = b.toolCallOutput({ output: refusalText(verdict.decision), tool_call_id: p.tool_call_id, stop_reason: 'aborted' });
        rec.outputs.set(p.tool_call_id, out);
        driver.push(out);
        continue;
      }
      const tool = queue.open();
      void executeOne(call, rec, ctx, tool).finally(() => tool.close());
    }
  } catch (e) {
    outcome = { status: 'failed', errorMessage: errorText(e) };
  }
  rec.outcome = outcome;
  driver.push(b.requestEnd(outcome.status, ctx.endDetail(outcome)));
}

interface SegmentState {
  open: boolean;
  stopped: boolean;
  content: string;
  stopReason: StopReason;
}

async function executeOne(call: ToolCallMessage, rec: TurnRecord, ctx: TurnContext, out: Producer): Promise<void> {
  const id = call.payload.tool_call_id;
  const seg: SegmentState = { open: false, stopped: false, content: '', stopReason: 'completed' };
  try {
    const gen = ctx.environment.executeTool({
      toolCall: call,
      signal: ctx.signal,
      ...(ctx.passDownApprove ? { approve: ctx.passDownApprove } : {}),
    });
    for await (const m of gen) {
      if (m.origin !== undefined) {
        // A child session's message: forwarded, never fed back; a direct child's meta leaves a pointer in our trace.
        if (m.type === 'session_meta' && m.origin.length === 1) out.push(b.subagent(m.origin[0]), true);
        out.push(m);
        continue;
      }
      if (m.type === 'model_msg') {
        const p = m.payload;
        if (p.type === 'partial_tool_call_output' && p.tool_call_id === id) {
          if (p.event_type === 'start') Object.assign(seg, { open: true, stopped: false, content: '' });
          else if (p.event_type === 'delta') seg.content += p.output;
          else Object.assign(seg, { stopped: true, stopReason: p.stop_reason ?? 'completed' });
        } else if (p.type === 'tool_call_output' && p.tool_call_id === id) {
          if (rec.outputs.has(id)) continue; // one output per call
          rec.outputs.set(id, m);
          seg.open = false;
        }
      }
      out.push(m);
    }
    if (!rec.outputs.has(id)) closeWithError(id, 'the tool ended without an output', seg, rec, out);
  } catch (e) {
    if (!rec.outputs.has(id)) closeWithError(id, errorText(e), seg, rec, out);
  }
}

/** The `[tool error]` output, closing a streamed segment first so the stream stays well-formed. */
function closeWithError(id: string, message: string, seg: SegmentState, rec: TurnRecord, out: Producer): void {
  const note = `[tool error] ${message}`;
  let msg: OmniMessage;
  if (seg.open && !seg.stopped) {
    const add = seg.content === '' ? note : `\n${note}`;
    out.push(b.partialToolCallOutput('delta', id, add));
    out.push(b.partialToolCallOutput('stop', id, '', { stop_reason: 'failed' }));
    msg = b.toolCallOutput({ output: seg.content + add, tool_call_id: id, stop_reason: 'failed' });
  } else if (seg.open && seg.stopped) {
    msg = b.toolCallOutput({ output: seg.content, tool_call_id: id, stop_reason: seg.stopReason });
  } else {
    msg = b.toolCallOutput({ output: note, tool_call_id: id, stop_reason: 'failed' });
  }
  rec.outputs.set(id, msg);
  out.push(msg);
}
