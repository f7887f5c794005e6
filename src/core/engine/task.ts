/**
 * The Task driver (engine.md §2.2–§2.4): open the run, then one request after another until nothing is
 * left to send. `max_turns > 0` is checked before each request; on hit the pending input becomes
 * carry-over and the engine streams `[reached max turns (N); stopping]` (`failed`), with no abort event.
 */
import * as b from '../omnimessage/builders';
import type { OmniMessage } from '../omnimessage/types';
import { afterTurn } from './after-turn';
import type { TurnRecord } from './carry-over';
import type { EngineCore } from './engine-core';
import type { EngineRunOptions } from './engine-options';
import { runRequest, taskRequestOptions } from './request-round';
import { openTask } from './run-start';

export async function* runTask(
  core: EngineCore,
  newMessages: OmniMessage[],
  opts: EngineRunOptions,
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, void, undefined> {
  let input: OmniMessage[] | null = yield* openTask(core, newMessages, signal);
  if (input === null) return;
  const run = taskRequestOptions(core, opts, signal);
  for (let requests = 0; ; requests++) {
    if (core.maxTurns > 0 && requests >= core.maxTurns) {
      core.settle(input);
      yield* maxTurnsNotice(core);
      return;
    }
    const rec: TurnRecord | null = yield* runRequest(core, input, run);
    if (rec === null) return;
    input = yield* afterTurn(core, rec, signal);
    if (input === null) return;
  }
}

async function* maxTurnsNotice(core: EngineCore): AsyncGenerator<OmniMessage, void, undefined> {
  const text = `[reached max turns (${core.maxTurns}); stopping]`;
  yield core.emit(b.partialText('start'));
  yield core.emit(b.partialText('delta', text));
  yield core.emit(b.partialText('stop', '', 'failed'));
  yield core.emit(b.assistantText(text, { stop_reason: 'failed' }));
}
