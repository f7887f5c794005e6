/**
 * Test helper: checks a message stream against the streaming discipline (engine.md §1.7). Per segment
 * (payload type + tool_call_id, per origin): start → delta* → stop, then at once the complete message
 * whose content equals the joined deltas and whose stop_reason equals the stop's. Returns the list of
 * violations (empty = OK) so tests can print all of them; `assertStreamDiscipline` throws with that list.
 */
import type { OmniMessage } from '../../src/core/omnimessage/types';

interface Open {
  key: string;
  content: string;
  name: string;
  images?: string[];
  stopped: boolean;
  stopReason?: string;
  at: number;
}

const COMPLETE_OF: Record<string, string> = {
  partial_text: 'text',
  partial_thinking: 'thinking',
  partial_tool_call: 'tool_call',
  partial_tool_call_output: 'tool_call_output',
};

const PARTIAL_OF: Record<string, string> = Object.fromEntries(Object.entries(COMPLETE_OF).map(([k, v]) => [v, k]));

function contentOf(p: Record<string, unknown>): string {
  return String(p.text ?? p.thinking ?? p.arguments ?? p.output ?? '');
}

export interface DisciplineOptions {
  /** Require each complete message to be the very next message (same origin) after its stop. Default true.
   * Producers must satisfy it; the engine's merged stream satisfies it too because it keeps stop+complete together. */
  adjacent?: boolean;
}

export function checkStreamDiscipline(msgs: readonly OmniMessage[], opts: DisciplineOptions = {}): string[] {
  const adjacent = opts.adjacent ?? true;
  const errors: string[] = [];
  const open = new Map<string, Open>();
  /** Per origin chain: the segment that stopped and awaits its complete message. */
  const awaiting = new Map<string, Open>();
  /** Non-adjacent mode: stopped segments by key. */
  const awaitingByKey = new Map<string, Open>();
  msgs.forEach((m, i) => {
    if (m.type === 'session_meta') return;
    const p = m.payload as unknown as Record<string, unknown> & { type: string };
    const originKey = (m.origin ?? []).join('/');
    const segType = COMPLETE_OF[p.type];
    const completeKey = PARTIAL_OF[p.type] ? `${originKey}|${PARTIAL_OF[p.type]}|${String(p.tool_call_id ?? '')}` : undefined;
    const pendingComplete = adjacent ? awaiting.get(originKey) : completeKey ? awaitingByKey.get(completeKey) : undefined;
    if (segType) {
      const key = `${originKey}|${p.type}|${String(p.tool_call_id ?? '')}`;
      const before = adjacent ? awaiting.get(originKey) : undefined;
      if (before) {
        errors.push(`#${i}: ${p.type} arrived before the complete message of segment ${before.key} (stopped at #${before.at})`);
        awaiting.delete(originKey);
      }
      const ev = p.event_type;
      let seg = open.get(key);
      if (ev === 'start') {
        if (seg) errors.push(`#${i}: start of ${key} while it is still open (opened at #${seg.at})`);
        if (contentOf(p) !== '') errors.push(`#${i}: start of ${key} carries content`);
        seg = { key, content: '', name: String(p.name ?? ''), stopped: false, at: i };
        open.set(key, seg);
        return;
      }
      if (!seg) {
        errors.push(`#${i}: ${String(ev)} of ${key} without start`);
        return;
      }
      if (ev === 'delta') {
        seg.content += contentOf(p);
        if (Array.isArray(p.images)) seg.images = p.images as string[];
      } else if (ev === 'stop') {
        if (contentOf(p) !== '') errors.push(`#${i}: stop of ${key} carries content`);
        seg.stopped = true;
        seg.stopReason = (p.stop_reason as string | undefined) ?? 'completed';
        seg.at = i;
        open.delete(key);
        if (adjacent) awaiting.set(originKey, seg);
        else awaitingByKey.set(key, seg);
      } else {
        errors.push(`#${i}: unknown event_type ${String(ev)}`);
      }
      return;
    }
    if (pendingComplete) {
      awaiting.delete(originKey);
      awaitingByKey.delete(pendingComplete.key);
      const [, ptype, id] = pendingComplete.key.split('|');
      const want = COMPLETE_OF[ptype];
      if (p.type !== want || String(p.tool_call_id ?? '') !== id) {
        errors.push(`#${i}: expected complete ${want} for ${pendingComplete.key} right after its stop, found ${p.type}`);
        return;
      }
      if (contentOf(p) !== pendingComplete.content)
        errors.push(`#${i}: complete ${want} content ${JSON.stringify(contentOf(p)).slice(0, 80)} ≠ joined deltas ${JSON.stringify(pendingComplete.content).slice(0, 80)}`);
      if (((p.stop_reason as string | undefined) ?? 'completed') !== pendingComplete.stopReason)
        errors.push(`#${i}: complete ${want} stop_reason ${String(p.stop_reason)} ≠ stop's ${pendingComplete.stopReason}`);
      if (ptype === 'partial_tool_call' && pendingComplete.name && p.name !== pendingComplete.name)
        errors.push(`#${i}: complete tool_call name ${String(p.name)} ≠ start's ${pendingComplete.name}`);
      const imgs = (p.images as string[] | undefined) ?? undefined;
      if (ptype === 'partial_tool_call_output' && JSON.stringify(imgs ?? []) !== JSON.stringify(pendingComplete.images ?? []))
        errors.push(`#${i}: complete tool_call_output images differ from the streamed ones`);
    }
  });
  for (const seg of open.values()) errors.push(`segment ${seg.key} opened at #${seg.at} never stopped`);
  for (const seg of [...awaiting.values(), ...awaitingByKey.values()]) errors.push(`segment ${seg.key} stopped at #${seg.at} has no complete message`);
  return errors;
}

export function assertStreamDiscipline(msgs: readonly OmniMessage[], opts?: DisciplineOptions): void {
  const errors = checkStreamDiscipline(msgs, opts);
  if (errors.length) throw new Error(`stream discipline violated:\n  ${errors.join('\n  ')}`);
}
