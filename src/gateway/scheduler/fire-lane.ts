/**
 * One schedule's lane: at most one fire runs at a time and at most one waits behind it. `offer` starts a
 * run row at once, queues it, or refuses it (the lane is full); when the running fire ends, `next` hands
 * over the queued one. Pure bookkeeping: the scheduler owns the rows and decides what a refusal means.
 */
import type { ScheduleRunRow } from '../store';

export type Offer = 'start' | 'queue' | 'full';

export class FireLane {
  running?: ScheduleRunRow;
  queued?: ScheduleRunRow;

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** What to do with a new run: start it (the lane was idle), queue it, or refuse it. */
  offer(row: ScheduleRunRow): Offer {
    if (!this.running) {
      this.running = row;
      return 'start';
    }
    if (!this.queued) {
      this.queued = row;
      return 'queue';
    }
    return 'full';
  }

  /** The running fire ended: the queued one (if any) becomes the running one and is returned. */
  next(): ScheduleRunRow | undefined {
    this.running = this.queued;
    this.queued = undefined;
    return this.running;
  }

  /** Drops the queued run (its schedule went away); returns it. */
  dropQueued(): ScheduleRunRow | undefined {
    const q = this.queued;
    this.queued = undefined;
    return q;
  }
}
