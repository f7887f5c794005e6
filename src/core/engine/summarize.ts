/**
 * Summarize compaction (engine.md §2.9): on the old model with the same tools, one user turn of
 * [folded input] + the prompt; the summary text and each attempt's token_usage stream, the rest is
 * trace-only. Every failure shares the 5-retry ladder — transport statuses and unusable replies (empty
 * summary, or tool calls, which get failed outputs, then a correction and the prompt again); `auth` and
 * permanent failures end it at once. Success asks the host to open a new context.
 */
import * as b from '../omnimessage/builders';
import type { LLMInterface, LLMOutcome, ToolCallMessage } from '../interfaces';
import type { CompactionReason, OmniMessage, RetryDetail, StopReason } from '../omnimessage/types';
import {
  contextSummaryMessage, extractSummary, SUMMARY_CORRECTION, SUMMARY_TOOL_REFUSAL, type CompactionSettings,
} from './compaction';
import { MAX_RECONNECTS, normalizeOutcome } from './reconnect';
import { errorText } from './turn';

export interface CompactionResult {
  status: StopReason;
  summary?: OmniMessage;
  /** An attempt completed, so the folded input now lives in the old model's history. */
  committed: boolean;
}

/** What the summarize loop needs from the engine. */
export interface CompactionHost {
  settings: CompactionSettings;
  /** The old model object. */
  llm: LLMInterface;
  /** Context size and turns reported on compaction_begin. */
  context: number;
  turns: number;
  /** Trace and return a message that is also streamed. */
  emit(msg: OmniMessage): OmniMessage;
  traceOnly(msg: OmniMessage): void;
  /** The token_usage to stream (session totals rewritten). */
  observeUsage(msg: OmniMessage): OmniMessage;
  endDetail(o: LLMOutcome, reconnects: number, signal: AbortSignal): RetryDetail;
  backoff(n: number, signal: AbortSignal): Promise<boolean>;
  /** Repairs still unsent when the compaction gives up: the next request must carry them first. */
  stash(repairs: OmniMessage[]): void;
  startNewContext(): void;
}

interface Attempt {
  status: StopReason;
  text: string;
  calls: ToolCallMessage[];
  errorMessage?: string;
  permanent?: boolean;
}

export async function* summarizeContext(
  host: CompactionHost,
  reason: CompactionReason,
  folded: OmniMessage[],
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, CompactionResult, undefined> {
  yield host.emit(b.compactionBegin(reason, 'summarize', host.context, host.turns));
  const prompt = b.userText(host.settings.prompt);
  host.traceOnly(prompt);
  let base: OmniMessage[] = [...folded, prompt];
  let input = base;
  let committed = false;
  let repairs: OmniMessage[] = [];
  let reconnects = 0;
  let attempts = 0;
  let lastError: string | undefined;
  const end = (status: StopReason): OmniMessage => {
    if (repairs.length > 0) host.stash(repairs);
    const d: { attempt?: number; error_message?: string } = {};
    if (attempts > 0) d.attempt = attempts;
    if (status === 'failed' && lastError !== undefined) d.error_message = lastError;
    return host.emit(b.compactionEnd(reason, 'summarize', status, d));
  };
  for (;;) {
    if (signal.aborted) {
      yield end('aborted');
      return { status: 'aborted', committed };
    }
    const a = yield* request(host, input, signal, reconnects);
    attempts++;
    let unusable = false;
    if (a.status === 'completed') {
      committed = true;
      base = [prompt];
      repairs = [];
      const summary = extractSummary(a.text);
      if (summary !== '' && a.calls.length === 0) {
        yield end('completed');
        host.startNewContext();
        return { status: 'completed', summary: contextSummaryMessage(summary), committed };
      }
      unusable = true;
      lastError = a.calls.length > 0 ? 'the summary reply called tools' : 'the summary reply was empty';
      repairs = a.calls.map((c) => b.toolCallOutput({ output: SUMMARY_TOOL_REFUSAL, tool_call_id: c.payload.tool_call_id, stop_reason: 'failed' }));
      for (const r of repairs) host.traceOnly(r);
    } else if (a.status === 'aborted' || signal.aborted) {
      yield end('aborted');
      return { status: 'aborted', committed };
    } else if (a.status === 'auth' || a.permanent) {
      lastError = a.errorMessage ?? a.status;
      yield end('failed');
      return { status: 'failed', committed };
    } else {
      lastError = a.errorMessage ?? a.status;
    }
    if (reconnects >= MAX_RECONNECTS) {
      yield end('failed');
      return { status: 'failed', committed };
    }
    reconnects++;
    if (!(await host.backoff(reconnects, signal))) {
      yield end('aborted');
      return { status: 'aborted', committed };
    }
    if (unusable) {
      // The unusable reply is committed; correct forward rather than rewrite history.
      const note = b.userText(SUMMARY_CORRECTION);
      host.traceOnly(note);
      input = [...repairs, note, ...base];
    }
  }
}

/** One summarize request: summary text and token_usage stream; request events and everything else are trace-only. */
async function* request(host: CompactionHost, input: OmniMessage[], signal: AbortSignal, reconnects: number): AsyncGenerator<OmniMessage, Attempt, undefined> {
  host.traceOnly(b.requestBegin());
  let text = '';
  const calls: ToolCallMessage[] = [];
  let outcome: LLMOutcome;
  try {
    const gen = host.llm.streamGenerate({ newMessages: input, signal });
    for (;;) {
      const r = await gen.next();
      if (r.done) {
        outcome = normalizeOutcome(r.value);
        break;
      }
      const m = r.value;
      if (m.type === 'event_msg' && m.payload.type === 'token_usage') {
        yield host.emit(host.observeUsage(m));
        continue;
      }
      if (m.type === 'model_msg') {
        const p = m.payload;
        if (p.type === 'partial_text') {
          yield m;
          continue;
        }
        if (p.type === 'text' && p.role === 'assistant') {
          text += p.text;
          yield host.emit(m);
          continue;
        }
        if (p.type === 'tool_call' && (p.stop_reason ?? 'completed') === 'completed') calls.push(m as ToolCallMessage);
      }
      host.traceOnly(m);
    }
  } catch (e) {
    outcome = { status: 'failed', errorMessage: errorText(e) };
  }
  host.traceOnly(b.requestEnd(outcome.status, host.endDetail(outcome, reconnects, signal)));
  const a: Attempt = { status: outcome.status, text, calls };
  if (outcome.errorMessage !== undefined) a.errorMessage = outcome.errorMessage;
  if (outcome.permanent) a.permanent = true;
  return a;
}
