/**
 * Performs one planned step of the message writer against the surface (post / edit / delete, a draft
 * preview, an append stream's start / append / stop) and records in the part's slot what it now shows.
 * Throws whatever the surface threw; the writer classifies it.
 */
import type { Clock } from '../contract/clock';
import type { MessageSurface, NativeStream, OutboundContent } from '../contract/surface';
import type { Planned } from './writer-plan';
import type { Slot, Step } from './writer-steps';

type Draft = Extract<NativeStream, { kind: 'draft' }>;
type Append = Extract<NativeStream, { kind: 'append' }>;

/** What a step made visible: the message id (none for drafts) and the content it shows. */
export interface Sent {
  messageId?: string;
  content: OutboundContent;
}

export async function performStep(step: Step, plan: readonly Planned[], slots: Slot[], surface: MessageSurface, native: NativeStream | undefined, clock: Clock): Promise<Sent> {
  const i = step.index;
  while (slots.length <= i) slots.push({ plain: false });
  const slot = slots[i];
  const p = plan[i];
  switch (step.op) {
    case 'post': {
      const id = await surface.post(p.content);
      Object.assign(slot, { id, sent: p.content, drafted: undefined });
      return { messageId: id, content: p.content };
    }
    case 'edit':
      await surface.edit(slot.id!, p.content);
      slot.sent = p.content;
      return { messageId: slot.id, content: p.content };
    case 'delete': {
      const id = slot.id!;
      const shown = slot.sent!;
      await surface.delete(id);
      slots.splice(i, 1);
      return { messageId: id, content: shown };
    }
    case 'draft':
      await (native as Draft).draft(p.content);
      slot.drafted = { text: p.content.text, at: clock.now() };
      return { content: p.content };
    case 'stream_start': {
      const content = { ...p.content, text: p.streamBody };
      const id = await (native as Append).start(content);
      Object.assign(slot, { id, stream: p.streamBody, sent: content });
      return { messageId: id, content };
    }
    case 'stream_append': {
      const content = { ...p.content, text: p.streamBody };
      await (native as Append).append(slot.id!, p.streamBody.slice((slot.stream ?? '').length), content);
      Object.assign(slot, { stream: p.streamBody, sent: content });
      return { messageId: slot.id, content };
    }
    case 'stream_stop':
      await (native as Append).stop(slot.id!, p.content);
      Object.assign(slot, { stream: undefined, sent: p.content });
      return { messageId: slot.id, content: p.content };
  }
}

/** A step the platform says was already done (e.g. "not modified" after a lost response): record it as sent. */
export function acceptAsSent(step: Step, plan: readonly Planned[], slots: Slot[], clock: Clock): void {
  while (slots.length <= step.index) slots.push({ plain: false });
  const slot = slots[step.index];
  const p = plan[step.index];
  if (step.op === 'delete') slots.splice(step.index, 1);
  else if (step.op === 'draft') slot.drafted = { text: p.content.text, at: clock.now() };
  else {
    slot.sent = p.content;
    if (step.op === 'stream_append') slot.stream = p.streamBody;
    if (step.op === 'stream_stop') slot.stream = undefined;
  }
}
