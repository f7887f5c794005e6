/**
 * The engine's compaction entry points (engine.md §2.9): a manual `compact()` between Tasks, the
 * discard mode (begin + end, a new model object; tool outputs of the dropped context are not kept), and
 * summarize wired to the engine (see summarize.ts). Success of either opens a new context; a manual
 * summary prefixes the next run's input, and a failed one keeps its folded input as carry-over.
 */
import * as b from '../omnimessage/builders';
import type { LLMInterface } from '../interfaces';
import type { CompactionReason, OmniMessage } from '../omnimessage/types';
import type { CompactionSettings } from './compaction';
import type { EngineCore } from './engine-core';
import { bootstrap } from './run-start';
import { summarizeContext, type CompactionHost, type CompactionResult } from './summarize';
import { downgradeGoalMessage } from './transcript';

const isOutput = (m: OmniMessage): boolean => m.type === 'model_msg' && m.payload.type === 'tool_call_output';

/** Manual compaction between Tasks; yields nothing unless `compactability()` is `ok`. */
export async function* manualCompaction(core: EngineCore, signal: AbortSignal): AsyncGenerator<OmniMessage, void, undefined> {
  if (core.compactability() !== 'ok' || !core.compaction) return;
  const ready = yield* bootstrap(core, signal);
  if (!ready.ok) return;
  if (core.compaction.mode === 'discard') {
    // Outputs answer calls of the context being dropped; only self-contained text survives.
    core.carryOver = core.carryOver.filter((m) => !isOutput(m));
    yield* discardContext(core, 'manual');
    return;
  }
  const folded = core.carryOver.map(downgradeGoalMessage);
  core.carryOver = [];
  core.atRisk = { input: folded };
  const r = yield* summarizeNow(core, 'manual', folded, signal);
  if (r.status === 'completed' && r.summary) core.pendingSummary = r.summary;
  else if (!r.committed) core.carryOver = [...core.carryOver, ...folded];
}

export async function* discardContext(core: EngineCore, reason: CompactionReason): AsyncGenerator<OmniMessage, void, undefined> {
  yield core.emit(b.compactionBegin(reason, 'discard', core.lastRequestTotal, core.turnsInContext));
  yield core.emit(b.compactionEnd(reason, 'discard', 'completed'));
  core.carryOver = core.carryOver.filter((m) => !isOutput(m));
  core.startNewContext();
}

/** Summarize on the old model (see summarize.ts); success opens a new context. */
export function summarizeNow(
  core: EngineCore,
  reason: CompactionReason,
  folded: OmniMessage[],
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, CompactionResult, undefined> {
  return summarizeContext(compactionHost(core), reason, folded, signal);
}

function compactionHost(core: EngineCore): CompactionHost {
  return {
    settings: core.compaction as CompactionSettings,
    llm: core.llm as LLMInterface,
    context: core.lastRequestTotal,
    turns: core.turnsInContext,
    emit: (m) => core.emit(m),
    traceOnly: (m) => core.trace.write(m),
    observeUsage: (m) => core.observeUsage(m, false),
    endDetail: (o, reconnects, signal) => core.endDetail(o, reconnects, signal),
    backoff: (n, signal) => core.backoff(n, signal),
    stash: (repairs) => {
      core.carryOver = [...repairs, ...core.carryOver];
    },
    startNewContext: () => core.startNewContext(),
  };
}
