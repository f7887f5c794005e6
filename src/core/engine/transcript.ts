/**
 * The model-only transcripts the engine writes when a request's output cannot be committed
 * (engine.md §1.9, §2.5, §2.6): `[turn_retried]` appended to a resent input and `[turn_aborted]` as
 * case-B carry-over. Layout (one item after another, nothing between them):
 *
 *   [turn_retried]                       (or [turn_aborted])
 *   [user_input]\n<text>\n[/user_input]                          turn_aborted only: each text input
 *   [thinking]\n<thinking>\n[/thinking]                           in production order, with text and
 *   [text]\n<text>\n[/text]                                       tool calls interleaved as streamed
 *   [tool_call name="<name>" id="<id>"]\n<arguments>\n[/tool_call]
 *   [tool_call_output id="<id>" status="<stop_reason>"]\n<output>\n[/tool_call_output]   (call order)
 *   [/turn_retried]
 *
 * Attribute values are JSON strings. A text input that is itself a whole `[turn_aborted]`/`[turn_retried]`
 * block is unwrapped and its items merged, so blocks never nest. Ended goal rounds are downgraded.
 */
import type { OmniMessage } from '../omnimessage/types';
import { findBlocks, formatBlock, isWholeBlock, parseBlock, parseFields } from '../omnimessage/markers';

function item(tag: string, body: string, attrs = ''): string {
  return `[${tag}${attrs}]\n${body}\n[/${tag}]`;
}

/** Transcript items for what an attempt produced: complete thinking/text/tool_call messages in stream order, then outputs. */
export function transcribeProduced(produced: readonly OmniMessage[], outputs: readonly OmniMessage[]): string[] {
  const items: string[] = [];
  for (const m of produced) {
    if (m.type !== 'model_msg') continue;
    const p = m.payload;
    if (p.type === 'thinking' && p.thinking !== '') items.push(item('thinking', p.thinking));
    else if (p.type === 'text' && p.role === 'assistant' && p.text !== '') items.push(item('text', p.text));
    else if (p.type === 'tool_call') items.push(item('tool_call', p.arguments, ` name=${JSON.stringify(p.name)} id=${JSON.stringify(p.tool_call_id)}`));
  }
  for (const m of outputs) {
    if (m.type !== 'model_msg' || m.payload.type !== 'tool_call_output') continue;
    const p = m.payload;
    items.push(item('tool_call_output', p.output, ` id=${JSON.stringify(p.tool_call_id)} status=${JSON.stringify(p.stop_reason ?? 'completed')}`));
  }
  return items;
}

/** The inner items of a whole `[turn_aborted]`/`[turn_retried]` text, or undefined for any other text. */
export function unwrapTurnBlock(text: string): string | undefined {
  for (const tag of ['turn_aborted', 'turn_retried']) {
    if (isWholeBlock(text, tag)) return parseBlock(text, tag) ?? '';
  }
  return undefined;
}

/** Transcript items for the text inputs of an attempt (turn_aborted only). */
export function transcribeInputs(input: readonly OmniMessage[]): string[] {
  const items: string[] = [];
  for (const m of input) {
    if (m.type !== 'model_msg' || m.payload.type !== 'text') continue;
    const inner = unwrapTurnBlock(m.payload.text);
    if (inner !== undefined) {
      if (inner.trim() !== '') items.push(inner);
    } else {
      items.push(item('user_input', downgradeGoalText(m.payload.text)));
    }
  }
  return items;
}

export function turnBlock(tag: 'turn_retried' | 'turn_aborted', items: readonly string[]): string {
  return formatBlock(tag, items.join('\n'));
}

/**
 * A goal round's input (`[goal]` block first, `round: N` inside) replayed after its goal ended: the block's
 * instructions are replaced by one inert line so the model does not resume a dead objective.
 */
export function downgradeGoalText(text: string): string {
  const lead = text.trimStart();
  const blocks = findBlocks(lead, 'goal');
  if (blocks.length === 0 || blocks[0].start !== 0) return text;
  const round = parseFields(blocks[0].body).fields.round;
  const rest = lead.slice(blocks[0].end).trim();
  const line = `[earlier goal round${round ? ` ${round}` : ''}; that goal has ended, do not pursue it]`;
  return rest ? `${line}\n${rest}` : line;
}

/** The same downgrade applied to a carried message (only user texts change). */
export function downgradeGoalMessage(m: OmniMessage): OmniMessage {
  if (m.type !== 'model_msg' || m.payload.type !== 'text' || m.payload.role !== 'user') return m;
  const t = downgradeGoalText(m.payload.text);
  return t === m.payload.text ? m : { ...m, payload: { ...m.payload, text: t } };
}
