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
import type {
  CompactionBeginPayload, CompactionEndPayload, CompactionMode, CompactionReason, EventMessage, ModelMessage, OmniMessage,
  RequestEndPayload, TokenCounts, TokenUsagePayload,
} from '../omnimessage/types';
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

/** One request outside compaction spans, between its `request_begin` and `request_end`. */
interface Round {
  input: OmniMessage[];
  assistant: OmniMessage[];
  /** Completed tool_call ids, in call order. */
  calls: string[];
  /** What `unanswered` was before the round took it, restored if the round is dropped. */
  unansweredBefore: string[];
}

/** An open compaction span: its requests only yield the summary text of the last completed attempt. */
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
  const replay = new TraceReplay((opts.fileIndex ?? 1) > 1);
  for (const m of records) replay.feed(m);
  return replay.finish();
}

/** The replay's running state; `feed` each record in order, then `finish` once. */
class TraceReplay {
  private history: OmniMessage[] = [];
  private pending: OmniMessage[] = [];
  /** Committed calls still waiting for their output to be sent, in call order. */
  private unanswered: string[] = [];
  private round: Round | null = null;
  private span: Span | null = null;
  private turns = 0;
  private lastRequestTotal = 0;
  private sessionTokens: TokenCounts = zeroCounts();
  private endedOnCompaction = false;
  /** A completed summarize's `[context_summary]`, not yet placed in the new context. */
  private summary: OmniMessage | null = null;
  private toolList: OmniMessage | undefined;

  /** A file after the first was opened by a compaction. */
  constructor(private fromCompaction: boolean) {}

  feed(m: OmniMessage): void {
    if (m.origin !== undefined || m.type === 'session_meta') return;
    this.endedOnCompaction = false;
    if (m.type === 'event_msg') this.onEvent(m);
    else this.onModelMessage(m);
  }

  finish(): ResumeState {
    this.dropRound();
    const state: ResumeState = {
      history: this.history,
      carryOver: this.pending.length > 0 || this.unanswered.length > 0 ? this.assemble() : [],
      pendingSummary: this.summary,
      turnsInContext: this.turns,
      lastRequestTotal: this.lastRequestTotal,
      sessionTokens: this.sessionTokens,
      fromCompaction: this.fromCompaction || this.endedOnCompaction,
      pendingRotation: this.endedOnCompaction,
    };
    if (this.toolList) state.toolList = this.toolList;
    if (this.span) {
      state.closeDanglingCompaction = b.compactionEnd(this.span.reason, this.span.mode, 'failed', {
        error_message: 'the process exited during compaction',
      });
    }
    return state;
  }

  private onEvent(m: EventMessage): void {
    const p = m.payload;
    switch (p.type) {
      case 'request_begin':
        return this.onRequestBegin();
      case 'request_end':
        return this.onRequestEnd(p);
      case 'token_usage':
        return this.countUsage(p);
      case 'compaction_begin':
        return this.openSpan(p);
      case 'compaction_end':
        return this.closeSpan(p);
      case 'tool_list_ready':
        this.toolList = m;
        return;
      default:
        return;
    }
  }

  // ------------------------------------------------------------------ request rounds

  /** Snapshots the pending input as a new round (a round still open is dropped first). */
  private onRequestBegin(): void {
    if (this.span) {
      this.span.inRequest = true;
      this.span.attemptText = '';
      return;
    }
    this.dropRound();
    this.round = { input: this.assemble(), assistant: [], calls: [], unansweredBefore: this.unanswered };
    this.unanswered = [];
    this.pending = [];
  }

  private onRequestEnd(p: RequestEndPayload): void {
    if (this.span) {
      if (this.span.inRequest && p.status === 'completed') this.span.lastCompletedText = this.span.attemptText;
      this.span.inRequest = false;
      return;
    }
    if (p.status === 'completed') this.commitRound();
    else this.dropRound();
  }

  /** The round's input and assistant messages join the history; its calls now await outputs. */
  private commitRound(): void {
    const round = this.round;
    if (!round) return;
    for (const x of round.input) this.history.push(x);
    for (const x of round.assistant) this.history.push(x);
    this.unanswered = round.calls;
    this.round = null;
  }

  /** A round that did not complete: its input pends again, ahead of what arrived since. */
  private dropRound(): void {
    const round = this.round;
    if (!round) return;
    this.pending = [...round.input, ...this.pending];
    this.unanswered = round.unansweredBefore;
    this.round = null;
  }

  /** The round input: the unanswered calls' outputs (real or placeholder) in call order, then the other pending messages. */
  private assemble(): OmniMessage[] {
    const want = new Set(this.unanswered);
    const byId = new Map<string, OmniMessage>();
    const rest: OmniMessage[] = [];
    for (const m of this.pending) {
      if (isOutput(m)) {
        const id = outputId(m);
        if (want.has(id) && !byId.has(id)) byId.set(id, m);
      } else {
        rest.push(m);
      }
    }
    const outs = this.unanswered.map(
      (id) => byId.get(id) ?? b.toolCallOutput({ output: INTERRUPTED_BY_EXIT, tool_call_id: id, stop_reason: 'aborted' }),
    );
    return [...outs, ...rest];
  }

  private onModelMessage(m: ModelMessage): void {
    if (this.span) return this.onSpanMessage(this.span, m);
    if (this.summary) {
      // The trace went on after a completed compaction without rotating: the summary opens the new context.
      this.pending.unshift(this.summary);
      this.summary = null;
    }
    if (isUserSide(m)) {
      this.pending.push(m);
      return;
    }
    const round = this.round;
    if (!round) return; // assistant text outside a request (e.g. the max-turns notice) is not context
    round.assistant.push(m);
    const p = m.payload;
    if (p.type === 'tool_call' && (p.stop_reason ?? 'completed') === 'completed' && !round.calls.includes(p.tool_call_id)) {
      round.calls.push(p.tool_call_id);
    }
  }

  // ------------------------------------------------------------------ counters

  /** Session totals from the last `token_usage`; turns count only requests outside compaction spans. */
  private countUsage(p: TokenUsagePayload): void {
    if (p.session && typeof p.session === 'object') this.sessionTokens = { ...zeroCounts(), ...p.session };
    else if (p.request) this.sessionTokens = addCounts(this.sessionTokens, p.request);
    if (p.request && typeof p.request.total === 'number') this.lastRequestTotal = p.request.total;
    if (!this.span) this.turns++;
  }

  // ------------------------------------------------------------------ compaction spans

  private openSpan(p: CompactionBeginPayload): void {
    this.dropRound();
    this.span = { reason: p.reason, mode: p.mode, inRequest: false, attemptText: '', lastCompletedText: '' };
  }

  /** Inside a span only tool outputs survive (they pend); assistant text of an attempt is the summary candidate. */
  private onSpanMessage(span: Span, m: ModelMessage): void {
    if (isOutput(m)) this.pending.push(m);
    else if (span.inRequest && m.payload.type === 'text' && m.payload.role === 'assistant') span.attemptText += m.payload.text;
  }

  /** A completed compaction empties the context; summarize leaves its summary to open the next one. */
  private closeSpan(p: CompactionEndPayload): void {
    const closing = this.span;
    this.span = null;
    if (p.status !== 'completed') return;
    this.history = [];
    this.unanswered = [];
    this.pending = p.mode === 'discard' ? this.pending.filter((x) => !isOutput(x)) : [];
    this.turns = 0;
    this.lastRequestTotal = 0;
    this.fromCompaction = true;
    this.endedOnCompaction = true;
    this.summary = null;
    if (p.mode === 'summarize' && closing) {
      const text = extractSummary(closing.lastCompletedText);
      if (text !== '') this.summary = contextSummaryMessage(text);
    }
  }
}
