/**
 * A schedule's slots (the instants it is due), pure: `start_at + k·period` for a period, croner's runs in the
 * schedule's IANA time zone for a cron (a wall time that occurs twice runs once, one that does not exist runs
 * right after the gap), `start_at` alone for a one-shot; never before `start_at`, never after `end_at` (a slot
 * exactly at `end_at` is kept). Epoch milliseconds in, epoch milliseconds out.
 */
import { Cron } from 'croner';
import type { ScheduleDefinition } from '../../core/state';

export type SlotDefinition = Pick<ScheduleDefinition, 'startAt' | 'periodMs' | 'cron' | 'timezone' | 'endAt'>;

const crons = new WeakMap<SlotDefinition, Cron>();

function cronOf(def: SlotDefinition & { cron: string }): Cron {
  let c = crons.get(def);
  if (!c) {
    c = new Cron(def.cron, { paused: true, ...(def.timezone ? { timezone: def.timezone } : {}) });
    crons.set(def, c);
  }
  return c;
}

/** The first slot strictly after `t`, or undefined when the schedule has none left. */
export function nextSlotAfter(def: SlotDefinition, t: number): number | undefined {
  const start = def.startAt.getTime();
  const end = def.endAt?.getTime() ?? Infinity;
  let next: number | undefined;
  if (def.cron !== undefined) {
    // croner returns runs strictly after its argument; one millisecond earlier keeps a run exactly at start_at.
    const from = Math.max(t, start - 1);
    next = cronOf(def as SlotDefinition & { cron: string }).nextRun(new Date(from))?.getTime();
  } else if (def.periodMs !== undefined) {
    const k = t < start ? 0 : Math.floor((t - start) / def.periodMs) + 1;
    next = start + k * def.periodMs;
  } else {
    next = t < start ? start : undefined;
  }
  return next !== undefined && next <= end ? next : undefined;
}

/** Slots in `(after, until]`, oldest first, at most `limit` of the newest; `skipped` counts older ones left out. */
export function slotsBetween(def: SlotDefinition, after: number, until: number, limit: number): { slots: number[]; skipped: number } {
  const slots: number[] = [];
  let skipped = 0;
  for (let s = nextSlotAfter(def, after); s !== undefined && s <= until; s = nextSlotAfter(def, s)) {
    slots.push(s);
    if (slots.length > limit) {
      slots.shift();
      skipped++;
    }
  }
  return { slots, skipped };
}
