/**
 * FireRuns: what happens to a schedule's run rows once they exist. A row joins its schedule's lane (starts,
 * waits, or is recorded `missed` when one already waits), runs through the executor with the schedule's
 * approval, and is finished with the outcome; then the waiting one starts, unless its schedule went away or
 * (for a slot) was disabled meanwhile. Rows another process queued (the CLI) are adopted the same way.
 */
import type { Clock } from '../../adapters/contract/clock';
import type { ApprovalMode, ScheduleDefinition } from '../../core/state';
import type { ResolvedRoute } from '../config';
import type { Logger } from '../logger';
import type { GatewayStore, ScheduleRunRow } from '../store';
import type { ScheduledApproval } from './approval-rule';
import { scheduleId, type ScheduleEntry } from './catalog';
import type { FireLane } from './fire-lane';

const MISSED_BUSY = 'not fired: the previous run was still going and one fire was already waiting';

export type ValidEntry = ScheduleEntry & { def: ScheduleDefinition };

export interface FireRequest {
  entry: ValidEntry;
  run: ScheduleRunRow;
  /** The approval the run gets when delivered on `route` (a bound schedule passes its session's current mode). */
  approval(route: ResolvedRoute, boundSessionMode?: ApprovalMode): ScheduledApproval;
  /** Records the run's session once it exists. */
  started(sessionId: string): Promise<void>;
  /** Another instance fired it and handed it to this one, which owns its conversation: it runs here, whoever owns it now. */
  handedOver?: true;
}

export type FireOutcome = { status: 'completed' } | { status: 'failed'; error: string };

export interface FireExecutor {
  /** Why a run of this schedule cannot be delivered now (no running adapter for its platform…); undefined when it can. */
  deliveryProblem(entry: ScheduleEntry): string | undefined;
  /** Runs one fire to its end; never rejects with anything the scheduler should know about. */
  fire(req: FireRequest): Promise<FireOutcome>;
}

export interface Tracked {
  entry: ScheduleEntry;
  /** Slots at or before this instant are handled. */
  cursor: number;
  lane: FireLane;
  /** The file is gone; kept until its running fire ends. */
  gone: boolean;
  logged?: string;
}

export interface FireRunsOptions {
  store: GatewayStore;
  /** This instance, written on the CLI-queued runs it adopts (null: a store shared with no other instance). */
  instanceId: string | null;
  clock: Clock;
  logger: Logger;
  executor: FireExecutor;
  approvalOf(entry: ScheduleEntry, route: ResolvedRoute, boundSessionMode?: ApprovalMode): ScheduledApproval | undefined;
  /** The tracked schedule of an id (undefined when this gateway has none). */
  tracked(id: string): Tracked | undefined;
  stopped(): boolean;
  /** The schedule went away for good and its last run ended. */
  forget(t: Tracked): void;
}

export class FireRuns {
  /** Run rows this process created or adopted (others in `queued` came from the CLI). */
  private readonly own = new Set<number>();
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly o: FireRunsOptions) {}

  /** A row this process made itself. */
  claim(id: number): void {
    this.own.add(id);
  }

  /** Resolves when every run started so far has ended and its row is written. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** Starts, queues or refuses a queued run row; returns the row as it now stands. */
  async admit(t: Tracked, row: ScheduleRunRow): Promise<ScheduleRunRow | undefined> {
    const verdict = t.lane.offer(row);
    if (verdict === 'start') {
      this.launch(t, row);
      return row;
    }
    if (verdict === 'queue') {
      this.o.logger.info({ schedule: t.entry.id, run: row.id }, 'schedule busy: its next run waits for the one that is running');
      return row;
    }
    this.own.delete(row.id);
    return this.o.store.finishScheduleRun(row.id, 'missed', MISSED_BUSY, this.o.clock.now());
  }

  private launch(t: Tracked, row: ScheduleRunRow): void {
    const p = this.runOne(t, row)
      .catch((err: unknown) => this.o.logger.error({ err, schedule: t.entry.id, run: row.id }, 'scheduled run not recorded'))
      .then(() => this.afterRun(t, row))
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async runOne(t: Tracked, row: ScheduleRunRow): Promise<void> {
    const entry = t.entry;
    let outcome: FireOutcome;
    const problem = entry.def ? this.o.executor.deliveryProblem(entry) : (entry.error?.message ?? 'the schedule file is invalid');
    if (problem !== undefined) outcome = { status: 'failed', error: problem };
    else {
      try {
        outcome = await this.o.executor.fire({
          entry: entry as ValidEntry,
          run: row,
          approval: (route, bound) => this.o.approvalOf(entry, route, bound)!,
          started: async (sessionId) => {
            await this.o.store.startScheduleRun(row.id, sessionId, this.o.clock.now());
          },
        });
      } catch (err) {
        this.o.logger.error({ err, schedule: entry.id }, 'scheduled run failed inside the gateway');
        outcome = { status: 'failed', error: 'internal error in the gateway (see its log)' };
      }
    }
    if (outcome.status === 'failed') this.o.logger.warn({ schedule: entry.id, run: row.id, error: outcome.error }, 'scheduled run failed');
    else this.o.logger.info({ schedule: entry.id, run: row.id }, 'scheduled run completed');
    await this.o.store.finishScheduleRun(row.id, outcome.status, outcome.status === 'failed' ? outcome.error : null, this.o.clock.now());
  }

  /** The lane moves on: the waiting run starts unless its schedule went away (or, for a slot, was disabled) meanwhile. */
  private async afterRun(t: Tracked, done: ScheduleRunRow): Promise<void> {
    this.own.delete(done.id);
    for (let next = t.lane.next(); next; next = t.lane.next()) {
      if (this.o.stopped()) return;
      const why = t.gone ? 'its schedule file was removed' : !t.entry.def ? 'its schedule file became invalid' : next.kind === 'slot' && !t.entry.def.enabled ? 'its schedule was disabled' : undefined;
      if (why === undefined) {
        this.launch(t, next);
        return;
      }
      this.own.delete(next.id);
      await this.o.store.finishScheduleRun(next.id, 'missed', `not fired: ${why} before it could run`, this.o.clock.now());
    }
    if (t.gone) this.o.forget(t);
  }

  /** Runs another process queued (`penguin-gateway schedules run`) join their schedule's lane. */
  async adoptForeign(): Promise<void> {
    if (this.o.stopped()) return;
    for (const row of (await this.o.store.listScheduleRuns({ status: 'queued', limit: 100 })).reverse()) {
      // Runs another instance fired are its own; one the CLI queued goes to whichever instance claims it first.
      if (this.own.has(row.id) || row.instance_id !== null) continue;
      if (this.o.instanceId !== null && !(await this.o.store.claimScheduleRun(row.id, this.o.instanceId))) continue;
      this.own.add(row.id);
      const t = this.o.tracked(scheduleId(row));
      if (!t || t.gone || !t.entry.def) {
        this.own.delete(row.id);
        await this.o.store.finishScheduleRun(row.id, 'failed', t?.entry.error?.message ?? `no schedule ${scheduleId(row)} in this gateway`, this.o.clock.now());
        continue;
      }
      await this.admit(t, row);
    }
  }
}
