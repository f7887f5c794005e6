/**
 * Frames one tool call's output stream (engine.md §1.7, §4.2): `start` at once, head-kept content deltas
 * up to `maxOutputLength`, then the notes (truncation, archive, tool note, interruption) as deltas, the
 * images in one delta just before `stop` (completed only), `stop`, and the complete `tool_call_output`
 * whose text equals the joined deltas. `[no output]` stands in when there is neither content nor a note.
 */
import * as b from '../omnimessage/builders';
import type { OmniMessage, StopReason } from '../omnimessage/types';
import { archiveOutput, OutputRecorder } from './output-archive';

export interface FrameClose {
  stopReason: StopReason;
  /** Notes after the truncation/archive notes, in order (tool note, then interruption note). */
  notes?: string[];
  images?: string[];
}

export class ToolOutputFrame {
  private streamed = '';
  private truncated = false;
  private readonly recorder = new OutputRecorder();
  private closed = false;

  constructor(
    private readonly toolCallId: string,
    private readonly maxOutputLength: number,
    private readonly scratchpadDir?: string,
  ) {}

  start(): OmniMessage {
    return b.partialToolCallOutput('start', this.toolCallId);
  }

  /** The delta for `text`, or null once the cap is reached (the text is still recorded for the archive). */
  content(text: string): OmniMessage | null {
    if (this.closed || text === '') return null;
    this.recorder.append(text);
    let part = text;
    if (this.maxOutputLength > 0) {
      const room = this.maxOutputLength - this.streamed.length;
      if (text.length > room) {
        this.truncated = true;
        part = text.slice(0, Math.max(0, room));
      }
    }
    if (part === '') return null;
    this.streamed += part;
    return b.partialToolCallOutput('delta', this.toolCallId, part);
  }

  /** Closing messages: notes delta, images delta, stop, complete. Never throws. */
  async close(c: FrameClose): Promise<OmniMessage[]> {
    this.closed = true;
    const id = this.toolCallId;
    const notes: string[] = [];
    if (this.truncated) {
      notes.push(`[output truncated: exceeded ${this.maxOutputLength} chars]`);
      if (this.scratchpadDir) notes.push(await archiveOutput(this.scratchpadDir, id, this.recorder));
    }
    for (const n of c.notes ?? []) if (n) notes.push(n);
    const out: OmniMessage[] = [];
    let tailText = '';
    if (notes.length) {
      const sep = this.streamed === '' || this.streamed.endsWith('\n') ? '' : '\n';
      tailText = sep + notes.join('\n');
    } else if (this.streamed === '') {
      tailText = '[no output]';
    }
    if (tailText) {
      out.push(b.partialToolCallOutput('delta', id, tailText));
      this.streamed += tailText;
    }
    const images = c.stopReason === 'completed' && c.images?.length ? [...c.images] : undefined;
    if (images) out.push(b.partialToolCallOutput('delta', id, '', { images }));
    out.push(b.partialToolCallOutput('stop', id, '', { stop_reason: c.stopReason }));
    out.push(b.toolCallOutput({ output: this.streamed, images, tool_call_id: id, stop_reason: c.stopReason }));
    return out;
  }
}
