/**
 * Positional replay of a trace file into the state a resumed engine starts from (engine.md §5 steps
 * 4–6). User-side records pend; `request_begin` snapshots them as a round's input (outputs first, in the
 * committed calls' order, a placeholder for any call left unanswered, strays dropped); `request_end
 * (completed)` commits input + the round's assistant messages; anything else drops the round and re-pends
 * its input. Inside compaction spans only tool outputs survive; a completed `compaction_end` empties the
 * context. What pends at the end is the carry-over. Total over any prefix of a trace: it never throws.
 */
import * as b from '../omnimessage/builders';
import { addCounts, zeroCounts } from '../omnimessage/tokens';
import type { CompactionMode, CompactionReason, OmniMessage, TokenCounts } from '../omnimessage/types';
import { contextSummaryMessage, extractSummary } from './compaction';

export const INTERRUPTED_BY_EXIT = '[interrupted: process exited before the tool finished]';

export interface ResumeState {
  /** Committed context for `setHistory` on the first model object. */
  history: OmniMessage[];
  /** Model-only input the next run sends before its own. */
  carryOver: OmniMessage[];
  /** `[context_summary]` that starts the next run's input (the trace ended on a completed summarize). */
  pendingSummary: OmniMessage | null;
  turnsInContext: number;
  lastRequestTotal: number;
  sessionTokens: TokenCounts;
  /** The current context was opened by a compaction. */
  fromCompaction: boolean;
  /** The trace ended on a completed compaction: the next write starts a new file. */
  pendingRotation: boolean;
  /** The last `tool_list_ready` seen (heads a rotated file until the next bootstrap lists tools again). */
  toolList?: OmniMessage;
  /** `compaction_end(failed)` to append first: the trace ended inside a compaction span. */
  closeDanglingCompaction?: OmniMessage;
}

interface Round {
  input: OmniMessage[];
  assistant: OmniMessage[];
  calls: string[];
  unansweredBefore: string[];
}

interface Span {
  reason: CompactionReason;
  mode: CompactionMode;
  inRequest: boolean;
  attemptText: string;
  lastCompletedText: string;
}

const isUserSide = (m: OmniMessage): boolean => {
  if (m.type !== 'model_msg') return false;
  const p = m.payload;
  return p.type === 'tool_call_output' || p.type === 'image_url' || ((p.type === 'text' || p.type === 'inline_data') && p.role === 'user');
};
const isOutput = (m: OmniMessage): boolean => m.type === 'model_msg' && m.payload.type === 'tool_call_output';
const outputId = (m: OmniMessage): string => (m.payload as { tool_call_id: string }).tool_call_id;

export function replayTrace(records: readonly OmniMessage[], opts: { fileIndex?: number } = {}): ResumeState {
  let history: OmniMessage[] = [];
  let pending: OmniMessage[] = [];
  /** Committed calls still waiting for their output to be sent, in call order. */
  let unanswered: string[] = [];
  let round: Round | null = null;
  let span: Span | null = null;
  let turns = 0;
  let lastRequestTotal = 0;
  let sessionTokens = zeroCounts();
  let sawUsage = false;
  let fromCompaction = (opts.fileIndex ?? 1) > 1;
  let endedOnCompaction = false;
  let summary: OmniMessage | null = null;
  let toolList: OmniMessage | undefined;

  /** The round input: the unanswered calls' outputs (real or placeholder) in call order, then the other pending messages. */
  const assemble = (): OmniMessage[] => {
    const want = new Set(unanswered);
    const byId = new Map<string, OmniMessage>();
    const rest: OmniMessage[] = [];
    for (const m of pending) {
      if (isOutput(m)) {
        const id = outputId(m);
        if (want.has(id) && !byId.has(id)) byId.set(id, m);
      } else {
        rest.push(m);
      }
    }
    const outs = unanswered.map((id) => byId.get(id) ?? b.toolCallOutput({ output: INTERRUPTED_BY_EXIT, tool_call_id: id, stop_reason: 'aborted' }));
    return [...outs, ...rest];
  };
  const dropRound = (): void => {
    if (!round) return;
    pending = [...round.input, ...pending];
    unanswered = round.unansweredBefore;
    round = null;
  };

  for (const m of records) {
    if (m.origin !== undefined || m.type === 'session_meta') continue;
    endedOnCompaction = false;
    if (m.type === 'event_msg') {
      const p = m.payload;
      switch (p.type) {
        case 'request_begin':
          if (span) {
            span.inRequest = true;
            span.attemptText = '';
            break;
          }
          dropRound();
          round = { input: assemble(), assistant: [], calls: [], unansweredBefore: unanswered };
          unanswered = [];
          pending = [];
          break;
        case 'request_end':
          if (span) {
            if (span.inRequest && p.status === 'completed') span.lastCompletedText = span.attemptText;
            span.inRequest = false;
            break;
          }
          if (!round) break;
          if (p.status === 'completed') {
            for (const x of round.input) history.push(x);
            for (const x of round.assistant) history.push(x);
            unanswered = round.calls;
            round = null;
          } else {
            dropRound();
          }
          break;
        case 'token_usage':
          if (p.session && typeof p.session === 'object') sessionTokens = { ...zeroCounts(), ...p.session };
          else if (p.request) sessionTokens = addCounts(sessionTokens, p.request);
          sawUsage = true;
          if (p.request && typeof p.request.total === 'number') lastRequestTotal = p.request.total;
          if (!span) turns++;
          break;
        case 'compaction_begin':
          dropRound();
          span = { reason: p.reason, mode: p.mode, inRequest: false, attemptText: '', lastCompletedText: '' };
          break;
        case 'compaction_end': {
          const closing = span;
          span = null;
          if (p.status !== 'completed') break;
          history = [];
          unanswered = [];
          pending = p.mode === 'discard' ? pending.filter((x) => !isOutput(x)) : [];
          turns = 0;
          lastRequestTotal = 0;
          fromCompaction = true;
          endedOnCompaction = true;
          summary = null;
          if (p.mode === 'summarize' && closing) {
            const text = extractSummary(closing.lastCompletedText);
            if (text !== '') summary = contextSummaryMessage(text);
          }
          break;
        }
        case 'tool_list_ready':
          toolList = m;
          break;
        default:
          break;
      }
      continue;
    }
    // model messages
    if (span) {
      if (isOutput(m)) pending.push(m);
      else if (span.inRequest && m.payload.type === 'text' && m.payload.role === 'assistant') span.attemptText += m.payload.text;
      continue;
    }
    if (summary) {
      // The trace went on after a completed compaction without rotating: the summary opens the new context.
      pending.unshift(summary);
      summary = null;
    }
    if (isUserSide(m)) {
      pending.push(m);
      continue;
    }
    if (!round) continue; // assistant text outside a request (e.g. the max-turns notice) is not context
    round.assistant.push(m);
    if (m.payload.type === 'tool_call' && (m.payload.stop_reason ?? 'completed') === 'completed' && !round.calls.includes(m.payload.tool_call_id)) {
      round.calls.push(m.payload.tool_call_id);
    }
  }

  dropRound();
  let closeDanglingCompaction: OmniMessage | undefined;
  if (span) {
    closeDanglingCompaction = b.compactionEnd(span.reason, span.mode, 'failed', { error_message: 'the process exited during compaction' });
  }
  const pendingRotation = endedOnCompaction;
  const pendingSummary = summary;
  const carryOver = pending.length > 0 || unanswered.length > 0 ? assemble() : [];
  if (!sawUsage) sessionTokens = zeroCounts();
  const state: ResumeState = {
    history,
    carryOver,
    pendingSummary,
    turnsInContext: turns,
    lastRequestTotal,
    sessionTokens,
    fromCompaction: fromCompaction || endedOnCompaction,
    pendingRotation,
  };
  if (toolList) state.toolList = toolList;
  if (closeDanglingCompaction) state.closeDanglingCompaction = closeDanglingCompaction;
  return state;
}
