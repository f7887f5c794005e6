/**
 * The start of a Task (engine.md §2.2): input = [pending summary] + [carry-over, goal rounds downgraded]
 * + new messages; the summary and new messages are traced (carry-over is model-only); the first run of
 * this runtime bootstraps the Environment and the model; queued notices join the input. A failed
 * bootstrap or an already-aborted signal ends the Task at once, keeping the input as carry-over.
 */
import { attachJson, sharedItemsJson } from '../json-splice';
import * as b from '../omnimessage/builders';
import type { ToolDefinition } from '../interfaces';
import type { OmniMessage } from '../omnimessage/types';
import { userAbortReason } from './abort-reason';
import type { EngineCore } from './engine-core';
import { downgradeGoalMessage } from './transcript';
import { errorText } from './turn';

export type BootstrapResult = { ok: true } | { ok: false; error: string };

/** The Task's first input, or null when the Task already ended (its `abort`, if any, was streamed). */
export async function* openTask(
  core: EngineCore,
  newMessages: OmniMessage[],
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, OmniMessage[] | null, undefined> {
  const head = takeRunHead(core, newMessages);
  core.atRisk = { input: head };
  const ready = yield* bootstrap(core, signal);
  const notices = yield* core.deliverNotices();
  const input = [...head, ...notices];
  core.atRisk = { input };
  if (!ready.ok) {
    yield* core.abortRun(input, `llm request error: ${ready.error}`);
    return null;
  }
  if (signal.aborted) {
    yield* core.abortRun(input, userAbortReason(signal));
    return null;
  }
  return input.length === 0 ? null : input;
}

/** Consumes the pending summary and carry-over; traces what belongs in the trace (not carry-over). */
function takeRunHead(core: EngineCore, newMessages: OmniMessage[]): OmniMessage[] {
  const summary = core.pendingSummary;
  core.pendingSummary = null;
  const carry = core.carryOver.map(downgradeGoalMessage);
  core.carryOver = [];
  if (summary) core.trace.write(summary);
  for (const m of newMessages) core.trace.write(m);
  return [...(summary ? [summary] : []), ...carry, ...newMessages];
}

/** First run of this runtime: MCP connect events and the tool list, then the first model object. */
export async function* bootstrap(core: EngineCore, signal: AbortSignal): AsyncGenerator<OmniMessage, BootstrapResult, undefined> {
  if (core.llm) return { ok: true };
  if (core.env.connect) {
    try {
      for await (const m of core.env.connect(signal)) yield core.emit(m);
    } catch {
      // Connect failures are the Environment's to report in mcp_connect_end; the run goes on with what listed.
    }
  }
  const tools = await listToolsOrNone(core);
  // The definitions are the agent's, shared by its sessions: their JSON in the trace line is made once.
  const list = b.toolListReady(tools);
  attachJson(list.payload, 'tools', () => sharedItemsJson(tools));
  core.trace.setToolList(list);
  yield core.emit(list);
  try {
    core.models = core.modelsFor(tools);
    core.llm = core.models.create();
    if (core.history) core.llm.setHistory?.(core.history);
    core.history = undefined;
  } catch (e) {
    core.models = undefined;
    core.llm = undefined;
    return { ok: false, error: errorText(e) };
  }
  return { ok: true };
}

async function listToolsOrNone(core: EngineCore): Promise<ToolDefinition[]> {
  try {
    return await core.env.listTools();
  } catch {
    return [];
  }
}
