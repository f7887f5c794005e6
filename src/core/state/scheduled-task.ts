/**
 * The `[scheduled_task]` user text of a schedule fire (engine.md §1.9, §8.4): one block whose body is the
 * `schedule:` and `fired_at:` lines, a blank line, then the prompt; hosts send it with `sender: "server"`.
 * `parseScheduledTask` reads it back (square or legacy form), or undefined for any other text.
 */
import { findBlocks, formatBlock, formatFields, parseFields } from '../omnimessage/markers';

export interface ScheduledTask {
  schedule: string;
  /** ISO 8601 instant. */
  firedAt: string;
  prompt: string;
}

export function formatScheduledTask(t: ScheduledTask): string {
  return formatBlock('scheduled_task', `${formatFields({ schedule: t.schedule, fired_at: t.firedAt })}\n\n${t.prompt}`);
}

export function parseScheduledTask(text: string): ScheduledTask | undefined {
  const block = findBlocks(text.trim(), 'scheduled_task')[0];
  if (!block || block.start !== 0) return undefined;
  const { fields, rest } = parseFields(block.body);
  if (fields.schedule === undefined || fields.fired_at === undefined) return undefined;
  return { schedule: fields.schedule, firedAt: fields.fired_at, prompt: rest };
}
