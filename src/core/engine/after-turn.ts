/**
 * What follows a completed request (engine.md §2.4, §2.9): the compaction check, then the next input =
 * [stashed compaction repairs] + outputs in call order + notices + steering; nothing to send ends the
 * Task. Discard waits for a Task boundary (no tool calls, nothing queued); summarize runs at once, and at
 * a boundary its summary prefixes the next run, mid-Task it starts the new context's first input.
 */
import type { CompactionReason, OmniMessage } from '../omnimessage/types';
import { orderedOutputs, type TurnRecord } from './carry-over';
import { compactionTrigger } from './compaction';
import { discardContext, summarizeNow } from './compaction-entry';
import type { EngineCore } from './engine-core';

/** Whether the automatic compaction ended the Task, handed it a new input, or left things as they were. */
type CompactionStep = { kind: 'ended' } | { kind: 'resumed'; input: OmniMessage[] } | { kind: 'unchanged' };

const ENDED: CompactionStep = { kind: 'ended' };
const UNCHANGED: CompactionStep = { kind: 'unchanged' };

/** The next request's input, or null when the Task ends here. */
export async function* afterTurn(
  core: EngineCore,
  rec: TurnRecord,
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, OmniMessage[] | null, undefined> {
  const outputs = orderedOutputs(rec);
  const midTask = rec.calls.length > 0;
  core.atRisk = { input: outputs };
  const step = yield* compactIfDue(core, outputs, midTask, signal);
  if (step.kind === 'ended') return null;
  if (step.kind === 'resumed') return step.input;
  return yield* nextInput(core, outputs, midTask);
}

/** [stashed repairs] + outputs + notices + steering; null when there is nothing to send. */
async function* nextInput(core: EngineCore, outputs: OmniMessage[], midTask: boolean): AsyncGenerator<OmniMessage, OmniMessage[] | null, undefined> {
  const stash = core.carryOver;
  core.carryOver = [];
  const joined = yield* core.joinQueued();
  if (!midTask && joined.length === 0) {
    core.carryOver = stash;
    return null;
  }
  return [...stash, ...outputs, ...joined];
}

async function* compactIfDue(
  core: EngineCore,
  outputs: OmniMessage[],
  midTask: boolean,
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, CompactionStep, undefined> {
  const settings = core.compaction;
  const reason = settings ? compactionTrigger(settings, core.lastRequestTotal, core.turnsInContext) : undefined;
  if (!reason || !settings) return UNCHANGED;
  // Read after the compaction ran: notices or steering may have arrived meanwhile.
  const atBoundary = (): boolean => !midTask && core.steering.size === 0 && core.notices.length === 0;
  if (settings.mode === 'discard') {
    if (!atBoundary()) return UNCHANGED;
    yield* discardContext(core, reason);
    return ENDED;
  }
  return yield* summarizeAfterTurn(core, reason, outputs, midTask, atBoundary, signal);
}

async function* summarizeAfterTurn(
  core: EngineCore,
  reason: CompactionReason,
  outputs: OmniMessage[],
  midTask: boolean,
  atBoundary: () => boolean,
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, CompactionStep, undefined> {
  const r = yield* summarizeNow(core, reason, midTask ? outputs : [], signal);
  if (r.status === 'completed' && r.summary) {
    if (atBoundary()) {
      core.pendingSummary = r.summary;
      return ENDED;
    }
    core.trace.write(r.summary);
    core.atRisk = { input: [r.summary] };
    const joined = yield* core.joinQueued();
    return { kind: 'resumed', input: [r.summary, ...joined] };
  }
  if (midTask) {
    const carry = r.committed ? core.carryOver : [...core.carryOver, ...outputs];
    yield* core.abortRun(carry, r.status === 'aborted' ? 'aborted during compaction' : 'compaction failed');
    return ENDED;
  }
  return r.status === 'aborted' ? ENDED : UNCHANGED;
}
