/**
 * OmniMessages → Chat Completions messages (engine.md §3 wire). A group of same-role messages becomes one
 * provider message, except that tool results must be `role:"tool"` messages: they go first, in the call order
 * of the preceding assistant message, and their images (vision models only — `tool` content is text) follow
 * in one user message together with the group's own texts and images. Text-only models get a short line in
 * place of each image. `sender` is never sent. Thinking is replayed through the field it came from
 * (`fidelity.reasoning_field`; unknown ⇒ both fields). Tool-call ids go out without their `#n` suffix; calls
 * that did not complete were never executed and are left out, since a call without a result is invalid.
 */
import { isComplete } from '../omnimessage/guards';
import type { CompleteMessage, OmniMessage, PayloadOf, Role } from '../omnimessage/types';
import type { ToolCallIdRegistry } from '../interfaces';

export const IMAGE_OMITTED = '[image omitted: model has no vision]';

export type WirePart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WirePart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[]; reasoning_content?: string; reasoning?: string }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface MessageGroup {
  role: Role;
  messages: CompleteMessage[];
}

export interface WireOptions {
  vision: boolean;
  ids: ToolCallIdRegistry;
}

/** Adjacent same-role complete messages grouped (resume); everything else is not model context and is skipped. */
export function groupByRole(msgs: readonly OmniMessage[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  for (const m of msgs) {
    if (!isComplete(m)) continue;
    const last = groups[groups.length - 1];
    if (last && last.role === m.payload.role) last.messages.push(m);
    else groups.push({ role: m.payload.role, messages: [m] });
  }
  return groups;
}

/** One turn's new input: non-empty, complete model messages, one role. */
export function turnInput(msgs: readonly OmniMessage[]): { ok: true; group: MessageGroup } | { ok: false; error: string } {
  if (msgs.length === 0) return { ok: false, error: 'streamGenerate needs at least one new message' };
  const bad = msgs.findIndex((m) => !isComplete(m));
  if (bad >= 0) return { ok: false, error: `newMessages[${bad}] is not a complete model message (${msgs[bad].type}/${String((msgs[bad].payload as { type?: unknown }).type)})` };
  const complete = msgs as readonly CompleteMessage[];
  const role = complete[0].payload.role;
  const mixed = complete.findIndex((m) => m.payload.role !== role);
  if (mixed >= 0) return { ok: false, error: `newMessages mixes roles: [0] is ${role}, [${mixed}] is ${complete[mixed].payload.role}` };
  return { ok: true, group: { role, messages: [...complete] } };
}

function imagePart(url: string, vision: boolean): WirePart {
  return vision ? { type: 'image_url', image_url: { url } } : { type: 'text', text: IMAGE_OMITTED };
}

function userGroup(g: MessageGroup, o: WireOptions, callOrder: readonly string[]): WireMessage[] {
  const outputs: PayloadOf<'tool_call_output'>[] = [];
  const parts: WirePart[] = [];
  for (const m of g.messages) {
    const p = m.payload;
    switch (p.type) {
      case 'tool_call_output': outputs.push(p); break;
      case 'text': parts.push({ type: 'text', text: p.text }); break;
      case 'image_url': parts.push(imagePart(p.image_url, o.vision)); break;
      case 'inline_data':
        parts.push(p.mime_type.startsWith('image/') ? imagePart(`data:${p.mime_type};base64,${p.data}`, o.vision) : { type: 'text', text: `[inline data omitted: ${p.mime_type}]` });
        break;
      default: break;
    }
  }
  const rank = (id: string) => { const i = callOrder.indexOf(id); return i < 0 ? callOrder.length : i; };
  const ordered = outputs.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p.tool_call_id) - rank(b.p.tool_call_id) || a.i - b.i).map((x) => x.p);
  const out: WireMessage[] = [];
  const imageParts: WirePart[] = [];
  for (const p of ordered) {
    const id = o.ids.outbound(p.tool_call_id);
    const images = p.images ?? [];
    const omitted = o.vision ? '' : images.map(() => `\n${IMAGE_OMITTED}`).join('');
    out.push({ role: 'tool', tool_call_id: id, content: p.output + omitted });
    if (o.vision && images.length > 0) {
      imageParts.push({ type: 'text', text: `[images from tool call ${id}]` });
      for (const url of images) imageParts.push({ type: 'image_url', image_url: { url } });
    }
  }
  const all = [...imageParts, ...parts];
  if (all.length === 1 && all[0].type === 'text') out.push({ role: 'user', content: all[0].text });
  else if (all.length > 0) out.push({ role: 'user', content: all });
  return out;
}

function assistantGroup(g: MessageGroup, o: WireOptions): WireMessage {
  let text = '';
  let thinking = '';
  let sawThinking = false;
  const fields = new Set<string>();
  const calls: WireToolCall[] = [];
  for (const m of g.messages) {
    const p = m.payload;
    if (p.type === 'text') text += p.text;
    else if (p.type === 'thinking') {
      sawThinking = true;
      thinking += p.thinking;
      const f = p.fidelity?.reasoning_field;
      fields.add(f === 'reasoning_content' || f === 'reasoning' ? f : 'unknown');
    } else if (p.type === 'tool_call' && (p.stop_reason ?? 'completed') === 'completed') {
      calls.push({ id: o.ids.outbound(p.tool_call_id), type: 'function', function: { name: p.name, arguments: p.arguments.trim() === '' ? '{}' : p.arguments } });
    }
  }
  const msg: WireMessage = { role: 'assistant', content: text !== '' || calls.length === 0 ? text : null };
  if (calls.length > 0) msg.tool_calls = calls;
  if (sawThinking) {
    const only = fields.size === 1 ? [...fields][0] : 'unknown';
    if (only !== 'reasoning') msg.reasoning_content = thinking;
    if (only !== 'reasoning_content') msg.reasoning = thinking;
  }
  return msg;
}

/** The provider messages for committed history plus the new turn (system prompt not included). */
export function toWireMessages(groups: readonly MessageGroup[], o: WireOptions): WireMessage[] {
  const out: WireMessage[] = [];
  let callOrder: string[] = [];
  for (const g of groups) {
    if (g.role === 'assistant') {
      out.push(assistantGroup(g, o));
      callOrder = g.messages.filter((m) => m.payload.type === 'tool_call').map((m) => (m.payload as PayloadOf<'tool_call'>).tool_call_id);
    } else {
      out.push(...userGroup(g, o, callOrder));
    }
  }
  return out;
}
