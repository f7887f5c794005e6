/**
 * What the message writer does next for a planned reply: per part, a draft preview, an append stream
 * (start / append / stop) or a plain message (post / edit), then deletes of parts the plan no longer has.
 * A part is touched only when what it shows differs from what was last sent (identical content is
 * skipped). Pure decisions over the writer's slots; the writer performs them.
 */
import type { ButtonSpec, NativeStream, OutboundContent } from '../contract/surface';
import type { Planned } from './writer-plan';

/** What the writer knows about one message of the reply. */
export interface Slot {
  id?: string;
  sent?: OutboundContent;
  plain: boolean;
  /** Open append stream: the text streamed so far. */
  stream?: string;
  /** Last draft preview shown for this part. */
  drafted?: { text: string; at: number };
}

export type StepOp = 'post' | 'edit' | 'delete' | 'draft' | 'stream_start' | 'stream_append' | 'stream_stop';

export interface Step {
  index: number;
  op: StepOp;
}

export interface StepContext {
  native?: NativeStream['kind'];
  now: number;
  /** Re-send an unchanged draft this often so it does not expire. */
  draftRefreshMs: number;
}

export function sameButtons(a?: ButtonSpec[], b?: ButtonSpec[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

function modeOf(native: StepContext['native'], isLast: boolean, final: boolean, slot: Slot | undefined): 'draft' | 'stream' | 'message' {
  const live = isLast && !final;
  if (native === 'draft' && live && !slot?.id) return 'draft';
  if (native === 'append' && (slot?.stream !== undefined || (live && !slot?.id))) return 'stream';
  return 'message';
}

export function nextStep(slots: readonly Slot[], plan: readonly Planned[], done: ReadonlySet<number>, final: boolean, c: StepContext): Step | undefined {
  for (let i = 0; i < plan.length; i++) {
    if (done.has(i)) continue;
    const slot = slots[i];
    const { content, streamBody } = plan[i];
    const isLast = i === plan.length - 1;
    switch (modeOf(c.native, isLast, final, slot)) {
      case 'draft':
        if (!slot?.drafted || slot.drafted.text !== content.text || c.now - slot.drafted.at >= c.draftRefreshMs) return { index: i, op: 'draft' };
        break;
      case 'stream': {
        if (!slot?.id) return { index: i, op: 'stream_start' };
        const streamed = slot.stream ?? '';
        if (!isLast || final || !streamBody.startsWith(streamed)) return { index: i, op: 'stream_stop' };
        const changed = streamBody.length > streamed.length || !sameButtons(slot.sent?.buttons, content.buttons) || slot.sent?.status !== content.status;
        if (changed) return { index: i, op: 'stream_append' };
        break;
      }
      case 'message': {
        if (!slot?.id) return { index: i, op: 'post' };
        const s = slot.sent;
        if (!s || s.text !== content.text || s.plain !== content.plain || !sameButtons(s.buttons, content.buttons) || (content.final && !s.final)) return { index: i, op: 'edit' };
        break;
      }
    }
  }
  for (let i = plan.length; i < slots.length; i++) if (!done.has(i) && slots[i].id) return { index: i, op: 'delete' };
  return undefined;
}
