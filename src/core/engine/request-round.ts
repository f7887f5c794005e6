/**
 * One request of a Task with its in-run reconnects (engine.md §2.3, §2.5): each attempt streams the
 * merged turn queue (traced in arrival order; trace-only items not yielded), then its outcome decides:
 * completed ⇒ the record is returned; user abort, non-retryable failure, exhausted ladder or an abort
 * during backoff ⇒ the Task ends with `abort` and the right carry-over; else back off and resend the same
 * input plus a `[turn_retried]` transcript of the failed attempts.
 */
import type { ApproveFn, LLMInterface, ThinkingLevel } from '../interfaces';
import type { OmniMessage } from '../omnimessage/types';
import { userAbortReason } from './abort-reason';
import { decide, withPolicy } from './approval';
import { buildCarryOver, newTurnRecord, withRetriedBlock, type TurnRecord } from './carry-over';
import type { EngineCore } from './engine-core';
import type { EngineRunOptions } from './engine-options';
import { exhaustionReason, isRetryable, MAX_RECONNECTS } from './reconnect';
import { startTurn, type TurnContext } from './turn';

/** What stays fixed across a Task's requests: its signal, thinking level and approval. */
export interface TaskRequestOptions {
  signal: AbortSignal;
  thinkingLevel: ThinkingLevel | undefined;
  /** The approve callback tools pass on to subagents (command policy applied). */
  passDownApprove: ApproveFn | undefined;
  decide: TurnContext['decide'];
}

export function taskRequestOptions(core: EngineCore, opts: EngineRunOptions, signal: AbortSignal): TaskRequestOptions {
  const policy = core.commandPolicy;
  return {
    signal,
    thinkingLevel: opts.thinkingLevel,
    passDownApprove: withPolicy(opts.approve, policy),
    decide: (tc) => decide(tc, opts.approve, policy),
  };
}

/** The completed attempt's record, or null when the Task ended (its `abort` was streamed). */
export async function* runRequest(
  core: EngineCore,
  input: OmniMessage[],
  run: TaskRequestOptions,
): AsyncGenerator<OmniMessage, TurnRecord | null, undefined> {
  const { signal } = run;
  const failed: TurnRecord[] = [];
  let attemptInput = input;
  let reconnects = 0;
  for (;;) {
    const rec = newTurnRecord(attemptInput);
    core.atRisk = { input: attemptInput, rec };
    yield* streamAttempt(core, rec, turnContext(core, run, reconnects));
    const outcome = rec.outcome ?? { status: 'failed' as const };
    if (signal.aborted || outcome.status === 'aborted') {
      yield* core.abortRun(buildCarryOver(rec), userAbortReason(signal));
      return null;
    }
    if (outcome.status === 'completed') return rec;
    if (!isRetryable(outcome)) {
      yield* core.abortRun(buildCarryOver(rec), `llm request error: ${outcome.errorMessage ?? outcome.status}`);
      return null;
    }
    failed.push(rec);
    attemptInput = withRetriedBlock(input, failed);
    core.atRisk = { input: attemptInput };
    if (reconnects >= MAX_RECONNECTS) {
      yield* core.abortRun(attemptInput, exhaustionReason(outcome));
      return null;
    }
    reconnects++;
    if (!(await core.backoff(reconnects, signal))) {
      yield* core.abortRun(attemptInput, 'aborted during reconnect backoff');
      return null;
    }
  }
}

/** Runs one attempt and drains its merged queue until every producer finished. */
async function* streamAttempt(core: EngineCore, rec: TurnRecord, ctx: TurnContext): AsyncGenerator<OmniMessage, void, undefined> {
  const running = startTurn(rec, ctx);
  for (;;) {
    const item = running.queue.take() ?? (await running.queue.next());
    if (item === null) break;
    core.trace.write(item.msg);
    if (!item.traceOnly) yield item.msg;
  }
  await running.done;
}

function turnContext(core: EngineCore, run: TaskRequestOptions, reconnects: number): TurnContext {
  const ctx: TurnContext = {
    llm: core.llm as LLMInterface,
    environment: core.env,
    signal: run.signal,
    decide: run.decide,
    onUsage: (m) => core.observeUsage(m, true),
    endDetail: (o) => core.endDetail(o, reconnects, run.signal),
  };
  if (run.thinkingLevel !== undefined) ctx.thinkingLevel = run.thinkingLevel;
  if (run.passDownApprove) ctx.passDownApprove = run.passDownApprove;
  return ctx;
}
