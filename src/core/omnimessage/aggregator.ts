/**
 * PartialAggregator (engine.md §1.7): folds `partial_*` fragments into complete messages. Fragments are
 * keyed by payload type + tool_call_id; `start` (re)opens, a headless delta/stop opens implicitly,
 * `stop` emits the complete message with the last stop_reason seen (default completed), `flush()`
 * emits whatever is still open, in opening order. Non-partial messages pass through untouched.
 */
import * as b from './builders';
import type { OmniMessage, PartialPayload, StopReason } from './types';
import { isPartial } from './guards';

interface Fragment {
  type: PartialPayload['type'];
  content: string;
  name: string;
  toolCallId: string;
  images?: string[];
  stopReason: StopReason;
  origin?: string[];
}

function keyOf(p: PartialPayload): string {
  return p.type === 'partial_tool_call' || p.type === 'partial_tool_call_output' ? `${p.type}\u0000${p.tool_call_id}` : p.type;
}

function absorb(f: Fragment, p: PartialPayload): void {
  switch (p.type) {
    case 'partial_text': f.content += p.text; break;
    case 'partial_thinking': f.content += p.thinking; break;
    case 'partial_tool_call':
      f.content += p.arguments;
      if (p.name) f.name = p.name;
      break;
    case 'partial_tool_call_output':
      f.content += p.output;
      if (p.images?.length) f.images = [...p.images];
      break;
  }
  if (p.stop_reason) f.stopReason = p.stop_reason;
}

function complete(f: Fragment): OmniMessage {
  let m: OmniMessage;
  switch (f.type) {
    case 'partial_text': m = b.assistantText(f.content, { stop_reason: f.stopReason }); break;
    case 'partial_thinking': m = b.thinking(f.content, { stop_reason: f.stopReason }); break;
    case 'partial_tool_call': m = b.toolCall({ name: f.name, arguments: f.content, tool_call_id: f.toolCallId, stop_reason: f.stopReason }); break;
    case 'partial_tool_call_output': m = b.toolCallOutput({ output: f.content, images: f.images, tool_call_id: f.toolCallId, stop_reason: f.stopReason }); break;
  }
  return f.origin ? { ...m, origin: f.origin } : m;
}

export class PartialAggregator {
  private readonly open = new Map<string, Fragment>();

  /** Feed one message; returns the complete messages it produced (the message itself when not a partial). */
  push(msg: OmniMessage): OmniMessage[] {
    if (!isPartial(msg)) return [msg];
    const p = msg.payload;
    const key = keyOf(p);
    const out: OmniMessage[] = [];
    let f = this.open.get(key);
    if (p.event_type === 'start' && f) {
      out.push(complete(f));
      f = undefined;
    }
    if (!f) {
      f = {
        type: p.type,
        content: '',
        name: p.type === 'partial_tool_call' ? p.name : '',
        toolCallId: 'tool_call_id' in p ? p.tool_call_id : '',
        stopReason: 'completed',
        origin: msg.origin,
      };
      this.open.delete(key); // re-insert so flush order follows (re)opening order
      this.open.set(key, f);
    }
    absorb(f, p);
    if (p.event_type === 'stop') {
      this.open.delete(key);
      out.push(complete(f));
    }
    return out;
  }

  /** Emit every fragment still open (e.g. a stream that ended without stops). */
  flush(): OmniMessage[] {
    const out = [...this.open.values()].map(complete);
    this.open.clear();
    return out;
  }

  get openCount(): number {
    return this.open.size;
  }
}

/** Collapse all partials of a finished stream into complete messages, keeping everything else in order. */
export function aggregateAll(msgs: Iterable<OmniMessage>): OmniMessage[] {
  const agg = new PartialAggregator();
  const out: OmniMessage[] = [];
  for (const m of msgs) out.push(...agg.push(m));
  out.push(...agg.flush());
  return out;
}
