/**
 * What one request attempt left behind (`TurnRecord`) and the model-only inputs built from it
 * (engine.md §2.5, §2.6): the retry input with its `[turn_retried]` transcript, and the carry-over of an
 * interrupted run. Case A (model completed, tools interrupted): real outputs plus placeholders, in call
 * order, so every committed call stays answered. Case B (model incomplete): input tool outputs kept, the
 * rest flattened into one `[turn_aborted]` text. None of this is traced.
 */
import * as b from '../omnimessage/builders';
import type { LLMOutcome, ToolCallMessage } from '../interfaces';
import type { OmniMessage } from '../omnimessage/types';
import { transcribeInputs, transcribeProduced, turnBlock } from './transcript';

export const INTERRUPTED_BY_USER = '[interrupted: tool aborted by user]';

export interface TurnRecord {
  /** The exact input sent with this attempt. */
  input: OmniMessage[];
  /** Complete thinking / assistant text / tool_call messages, in stream order. */
  produced: OmniMessage[];
  /** Complete tool_calls with stop_reason completed (the ones approval and pairing apply to), in call order. */
  calls: ToolCallMessage[];
  /** The one output per call id (real, refused, or tool error). */
  outputs: Map<string, OmniMessage>;
  /** Set when the model stream ended. */
  outcome?: LLMOutcome;
}

export function newTurnRecord(input: OmniMessage[]): TurnRecord {
  return { input, produced: [], calls: [], outputs: new Map() };
}

/** Outputs in original call order, one per id, skipping calls without one. */
export function orderedOutputs(rec: TurnRecord): OmniMessage[] {
  const out: OmniMessage[] = [];
  const seen = new Set<string>();
  for (const c of rec.calls) {
    const id = c.payload.tool_call_id;
    if (seen.has(id)) continue;
    seen.add(id);
    const o = rec.outputs.get(id);
    if (o) out.push(o);
  }
  return out;
}

/** Case A when the model completed, else case B. */
export function buildCarryOver(rec: TurnRecord): OmniMessage[] {
  if (rec.outcome?.status === 'completed') {
    const out: OmniMessage[] = [];
    const seen = new Set<string>();
    for (const c of rec.calls) {
      const id = c.payload.tool_call_id;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(rec.outputs.get(id) ?? b.toolCallOutput({ output: INTERRUPTED_BY_USER, tool_call_id: id, stop_reason: 'aborted' }));
    }
    return out;
  }
  const structured = rec.input.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output');
  const items = [...transcribeInputs(rec.input), ...transcribeProduced(rec.produced, orderedOutputs(rec))];
  return items.length > 0 ? [...structured, b.userText(turnBlock('turn_aborted', items))] : structured;
}

/** The resend of `input` after failed attempts: the same input plus one `[turn_retried]` text of everything they produced. */
export function withRetriedBlock(input: OmniMessage[], failed: readonly TurnRecord[]): OmniMessage[] {
  const items = failed.flatMap((r) => transcribeProduced(r.produced, orderedOutputs(r)));
  return items.length > 0 ? [...input, b.userText(turnBlock('turn_retried', items))] : input;
}
