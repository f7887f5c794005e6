/**
 * Chat Completions chunks → OmniMessages (engine.md §1.7, §3). Segment order thinking → text → tool_call; a
 * type switch closes the open segment; each segment is `start → delta* → stop` followed at once by its complete
 * message, and segments never interleave. Tool-call fragments are keyed by `index` (a new `id` on a known index
 * opens a new call). Only the earliest unfinished call streams live; later ones are buffered and replayed as
 * whole segments when their turn comes. A call is known complete — and its `tool_call` emitted eagerly — when a
 * later call exists and its arguments already form a complete JSON object, when another type takes over, or at
 * `finish_reason`. Arguments must be a JSON object (or empty) at call end, else the call stops `malformed`.
 */
import * as b from '../omnimessage/builders';
import type { CompleteMessage, OmniMessage, StopReason } from '../omnimessage/types';
import type { ToolCallIdRegistry } from '../interfaces';
import type { ChatUsage } from './usage';

export type ReasoningField = 'reasoning_content' | 'reasoning';

/** The parts of a `ChatCompletionChunk` this reads (reasoning fields are provider extensions). */
export interface ChunkLike {
  choices?: Array<{ index?: number; delta?: DeltaLike | null; finish_reason?: string | null }> | null;
  usage?: ChatUsage | null;
}
export interface DeltaLike {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolFragment[] | null;
}
export interface ToolFragment {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface Call {
  providerId: string;
  name: string;
  args: string;
  /** Characters of `args` already streamed as deltas. */
  streamed: number;
  /** Session-unique id, allocated when the call's segment starts. */
  id?: string;
  complete: boolean;
  done: boolean;
}

type TextSegment = { kind: 'text'; text: string } | { kind: 'thinking'; text: string; field: ReasoningField };

/** finish_reason values that end a turn normally; anything else marks the last segment `failed`. */
const NORMAL_FINISH = new Set(['stop', 'tool_calls', 'function_call', 'content_filter']);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function isJsonObjectText(s: string): boolean {
  try {
    const v: unknown = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Cheap pre-check first: a complete object must end with `}`. */
function looksComplete(args: string): boolean {
  return args.trimEnd().endsWith('}') && isJsonObjectText(args);
}

export class ChatStreamTranslator {
  private segment: TextSegment | undefined;
  private readonly calls: Call[] = [];
  private readonly byIndex = new Map<number, Call>();
  /** Complete messages emitted so far, in stream order (what a completed turn commits to history). */
  readonly produced: CompleteMessage[] = [];
  finishReason: string | undefined;
  usage: ChatUsage | undefined;
  /** Why the stream is invalid (set on the first bad tool call); the caller stops reading. */
  malformed: string | undefined;

  /** The last delta made (text, thinking or a call's arguments), to join the next piece into while both are in one list. */
  private lastDelta: OmniMessage | undefined;

  constructor(private readonly ids: ToolCallIdRegistry) {}

  push(chunk: ChunkLike): OmniMessage[] {
    const out: OmniMessage[] = [];
    this.pushInto(out, chunk);
    return out;
  }

  /**
   * Chunks that arrived together, as one list in which each segment's consecutive deltas are one delta:
   * a busy process that read several chunks at once hands its consumers one piece instead of many.
   */
  pushAll(chunks: readonly ChunkLike[]): OmniMessage[] {
    const out: OmniMessage[] = [];
    // After a malformed chunk every later one adds nothing (pushInto).
    for (const chunk of chunks) this.pushInto(out, chunk);
    return out;
  }

  private pushInto(out: OmniMessage[], chunk: ChunkLike): void {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice || this.finishReason !== undefined || this.malformed !== undefined) return;
    const d = choice.delta ?? {};
    const rc = str(d.reasoning_content);
    const reasoning = rc !== '' ? rc : str(d.reasoning);
    if (reasoning !== '') this.appendText(out, 'thinking', reasoning, rc !== '' ? 'reasoning_content' : 'reasoning');
    const content = str(d.content) + str(d.refusal);
    if (content !== '') this.appendText(out, 'text', content);
    for (const f of d.tool_calls ?? []) {
      if (this.malformed !== undefined) break;
      this.appendToolFragment(out, f);
    }
    if (choice.finish_reason && this.malformed === undefined) {
      this.finishReason = choice.finish_reason;
      this.finish(out);
    }
  }

  /** Close whatever is still open with `reason` (abort, timeout, errors, truncation). */
  closeOpen(reason: StopReason): OmniMessage[] {
    const out: OmniMessage[] = [];
    this.closeSegment(out, reason);
    for (const c of this.calls) if (!c.done && (c.id !== undefined || c.name !== '')) this.closeCall(out, c, reason, false);
    return out;
  }

  private finish(out: OmniMessage[]): void {
    const lastReason: StopReason = NORMAL_FINISH.has(this.finishReason ?? '') ? 'completed' : 'failed';
    if (this.segment) {
      this.closeSegment(out, lastReason);
      return;
    }
    const open = this.calls.filter((c) => !c.done);
    open.forEach((c, i) => {
      if (c.name === '' && c.id === undefined) this.malformed ??= 'tool call without a function name';
      this.closeCall(out, c, i === open.length - 1 ? lastReason : 'completed');
    });
  }

  private appendText(out: OmniMessage[], kind: TextSegment['kind'], piece: string, field?: ReasoningField): void {
    const seg = this.segment;
    const same = seg !== undefined && seg.kind === kind && (seg.kind !== 'thinking' || seg.field === field);
    if (!same) {
      this.closeSegment(out, 'completed');
      this.closeAllCalls(out);
      if (this.malformed !== undefined) return;
      this.segment = kind === 'thinking' ? { kind, text: '', field: field ?? 'reasoning_content' } : { kind: 'text', text: '' };
      out.push(kind === 'thinking' ? b.partialThinking('start') : b.partialText('start'));
    }
    this.segment!.text += piece;
    const last = out[out.length - 1];
    if (same && last !== undefined && last === this.lastDelta) {
      // The previous piece of this segment is still in this list: one delta carries both.
      const joined = (kind === 'thinking' ? (last.payload as { thinking: string }).thinking : (last.payload as { text: string }).text) + piece;
      out[out.length - 1] = this.lastDelta = kind === 'thinking' ? b.partialThinking('delta', joined) : b.partialText('delta', joined);
      return;
    }
    out.push((this.lastDelta = kind === 'thinking' ? b.partialThinking('delta', piece) : b.partialText('delta', piece)));
  }

  private closeSegment(out: OmniMessage[], reason: StopReason): void {
    const seg = this.segment;
    if (!seg) return;
    this.segment = undefined;
    let complete: CompleteMessage;
    if (seg.kind === 'thinking') {
      out.push(b.partialThinking('stop', '', reason));
      complete = b.thinking(seg.text, { stop_reason: reason, fidelity: { reasoning_field: seg.field } });
    } else {
      out.push(b.partialText('stop', '', reason));
      complete = b.assistantText(seg.text, { stop_reason: reason });
    }
    out.push(complete);
    this.produced.push(complete);
  }

  /** Another segment type takes over: every pending call is complete now. */
  private closeAllCalls(out: OmniMessage[]): void {
    for (const c of this.calls) {
      if (c.done) continue;
      if (c.name === '' && c.id === undefined) this.malformed ??= 'tool call without a function name';
      this.closeCall(out, c, 'completed');
    }
  }

  private appendToolFragment(out: OmniMessage[], f: ToolFragment): void {
    this.closeSegment(out, 'completed');
    const id = str(f.id);
    const name = str(f.function?.name);
    const args = str(f.function?.arguments);
    const last = this.calls[this.calls.length - 1];
    let call = typeof f.index === 'number' ? this.byIndex.get(f.index) : last;
    if (call && id !== '' && call.providerId !== '' && id !== call.providerId) call = undefined;
    if (call?.done) {
      // A closed call can only be finished: more argument text means the stream contradicts itself.
      if (args.trim() !== '') this.malformed = `tool call ${call.name} continued after it was complete`;
      this.pump(out);
      return;
    }
    if (!call) {
      for (const c of this.calls) if (!c.done && !c.complete && looksComplete(c.args)) c.complete = true;
      call = { providerId: id, name, args: '', streamed: 0, complete: false, done: false };
      this.calls.push(call);
    }
    if (typeof f.index === 'number') this.byIndex.set(f.index, call);
    if (call.providerId === '') call.providerId = id;
    if (call.name === '') call.name = name;
    call.args += args;
    if (args !== '' && call !== this.calls[this.calls.length - 1] && looksComplete(call.args)) call.complete = true;
    this.pump(out);
  }

  /** Stream the earliest unfinished call live; close every call in order that is known complete. */
  private pump(out: OmniMessage[]): void {
    for (const c of this.calls) {
      if (c.done) continue;
      if (c.id === undefined) {
        if (c.name === '') return;
        this.startCall(out, c);
      }
      this.flushArgs(out, c);
      if (!c.complete) return;
      this.closeCall(out, c, 'completed');
    }
  }

  private startCall(out: OmniMessage[], c: Call): void {
    c.id = this.ids.allocate(c.providerId !== '' ? c.providerId : c.name);
    out.push(b.partialToolCall('start', c.id, c.name));
  }

  private flushArgs(out: OmniMessage[], c: Call): void {
    if (c.streamed >= c.args.length) return;
    const last = out[out.length - 1];
    if (last !== undefined && last === this.lastDelta && (last.payload as { tool_call_id?: string }).tool_call_id === c.id) {
      // This call's previous delta is still in this list: one delta carries both pieces.
      const joined = (last.payload as { arguments: string }).arguments + c.args.slice(c.streamed);
      out[out.length - 1] = this.lastDelta = b.partialToolCall('delta', c.id!, '', joined);
    } else out.push((this.lastDelta = b.partialToolCall('delta', c.id!, '', c.args.slice(c.streamed))));
    c.streamed = c.args.length;
  }

  /** `validate`: a natural end (not an interruption), so the arguments must parse. */
  private closeCall(out: OmniMessage[], c: Call, reason: StopReason, validate = true): void {
    if (c.id === undefined) this.startCall(out, c);
    this.flushArgs(out, c);
    let r = reason;
    if (validate && this.malformed !== undefined) r = 'malformed';
    else if (validate && c.args.trim() !== '' && !isJsonObjectText(c.args)) {
      r = 'malformed';
      this.malformed = `invalid JSON arguments for tool call ${c.name} (${c.id})`;
    }
    c.done = true;
    out.push(b.partialToolCall('stop', c.id!, '', '', r));
    const complete = b.toolCall({ name: c.name, arguments: c.args, tool_call_id: c.id!, stop_reason: r });
    out.push(complete);
    this.produced.push(complete);
  }
}
