/**
 * Scheduler (gateway.md §9, engine.md §8.4): keeps every routed agent's schedules (re-read on change) and
 * fires each slot once, as a run row, through the executor. Per schedule one fire runs and one waits; a slot
 * that comes while both are taken is recorded `missed`, and so is every slot that passed while the gateway
 * was down (found from each schedule's watermark), except one at most `graceMs` old, which still fires.
 * Times come from the injected clock; manual runs (API, or queued rows the CLI wrote) share the same lane.
 */
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { ApprovalMode, ScheduleDefinition } from '../../core/state';
import type { ResolvedRoute } from '../config';
import type { Logger } from '../logger';
import type { GatewayStore, ScheduleGrant, ScheduleRunKind, ScheduleRunRow } from '../store';
import { definitionHash, scheduledApproval, type ScheduledApproval } from './approval-rule';
import { loadCatalog, routedAgents, scheduleDirOf, scheduleId, type ScheduleEntry } from './catalog';
import { editScheduleFile } from './file-edit';
import { FireLane } from './fire-lane';
import { nextSlotAfter, slotsBetween } from './slots';
import type { DirWatcher } from './watcher';

export const DEFAULT_GRACE_MS = 60_000;
export const DEFAULT_TICK_MS = 30_000;
/** Missed slots recorded per look (the newest); a longer outage is logged with its full count. */
export const MAX_MISSED_ROWS = 100;
const MISSED_DOWN = 'not fired: the gateway was not running at this time';
const MISSED_BUSY = 'not fired: the previous run was still going and one fire was already waiting';

export type ValidEntry = ScheduleEntry & { def: ScheduleDefinition };

export interface FireRequest {
  entry: ValidEntry;
  run: ScheduleRunRow;
  /** The approval the run gets when delivered on `route` (a bound schedule passes its session's current mode). */
  approval(route: ResolvedRoute, boundSessionMode?: ApprovalMode): ScheduledApproval;
  /** Records the run's session once it exists. */
  started(sessionId: string): Promise<void>;
}

export type FireOutcome = { status: 'completed' } | { status: 'failed'; error: string };

export interface FireExecutor {
  /** Why a run of this schedule cannot be delivered now (no running adapter for its platform…); undefined when it can. */
  deliveryProblem(entry: ScheduleEntry): string | undefined;
  /** Runs one fire to its end; never rejects with anything the scheduler should know about. */
  fire(req: FireRequest): Promise<FireOutcome>;
}

export interface SchedulerOptions {
  config: Parameters<typeof loadCatalog>[0];
  store: GatewayStore;
  clock: Clock;
  logger: Logger;
  executor: FireExecutor;
  graceMs?: number;
  /** Longest wait between two looks (each writes the watermarks); default 30 s. */
  tickMs?: number;
  /** How often the files are re-read besides watching them; 0 = only on `reload()` (tests). Default 30 s. */
  rescanMs?: number;
  /** How often runs queued by another process (the CLI) are picked up; 0 = never. Default 2 s. */
  pollMs?: number;
  /** Watches the schedule directories (watchDirectories); absent = rescans only. */
  watch?: (changed: () => void) => DirWatcher;
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

export type RunNowResult =
  | { ok: true; run: ScheduleRunRow }
  | { ok: false; code: 'not_found' | 'invalid' | 'already_queued'; message: string };

export type EditOutcome = { ok: true } | { ok: false; code: 'not_found' | 'invalid' | 'io'; message: string };

export class Scheduler {
  private readonly tracked = new Map<string, Tracked>();
  private readonly grants = new Map<string, ScheduleGrant>();
  /** Run rows this process created or adopted (others in `queued` came from the CLI). */
  private readonly own = new Set<number>();
  private readonly inflight = new Set<Promise<void>>();
  private timers: { tick?: TimerHandle; rescan?: TimerHandle; poll?: TimerHandle } = {};
  private chain: Promise<unknown> = Promise.resolve();
  private watcher?: DirWatcher;
  private stopped = false;
  private readonly graceMs: number;

  constructor(private readonly o: SchedulerOptions) {
    this.graceMs = o.graceMs ?? DEFAULT_GRACE_MS;
  }

  // ------------------------------------------------------------------ lifecycle
  async start(): Promise<void> {
    const now = this.o.clock.now();
    const failed = await this.o.store.failUnfinishedScheduleRuns('the gateway stopped (or was not running) before this run could finish', now);
    if (failed.length > 0) this.o.logger.warn({ runs: failed.map((r) => r.id) }, 'scheduled runs of the previous process marked failed');
    for (const g of await this.o.store.listScheduleGrants()) this.grants.set(scheduleId(g), g);
    const marks = new Map((await this.o.store.listScheduleWatermarks()).map((w) => [scheduleId(w), w.watched_until]));
    this.watcher = this.o.watch?.(() => void this.reload());
    await this.serial(() => this.reloadNow(marks));
    await this.serial(() => this.evaluate());
    this.repeat('rescan', this.o.rescanMs ?? DEFAULT_TICK_MS, () => this.reload());
    this.repeat('poll', this.o.pollMs ?? 2000, () => this.serial(() => this.adoptForeign()));
  }

  /** Stops looking; running fires are aborted by their sessions' shutdown (see `settled`). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of Object.values(this.timers)) if (t) this.o.clock.clearTimeout(t);
    this.watcher?.close();
    await this.chain.catch(() => undefined);
    await this.o.store.markSchedulesWatched(this.refs(), this.o.clock.now()).catch((err: unknown) => this.o.logger.warn({ err }, 'schedule watermarks not written'));
  }

  /** Resolves when every fire started so far has ended and its row is written. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** Re-reads every schedule file now (the watcher and the rescan timer call it too). */
  reload(): Promise<void> {
    return this.serial(async () => {
      await this.reloadNow();
      await this.evaluate();
    });
  }

  // ------------------------------------------------------------------ what the API, CLI and chat see
  entries(): Tracked[] {
    return [...this.tracked.values()].filter((t) => !t.gone).sort((a, b) => (a.entry.id < b.entry.id ? -1 : 1));
  }

  /** By id, or by bare name when exactly one schedule has it. */
  find(idOrName: string): Tracked | undefined {
    const byId = this.tracked.get(idOrName);
    if (byId && !byId.gone) return byId;
    const named = this.entries().filter((t) => t.entry.ref.schedule_name === idOrName);
    return named.length === 1 ? named[0] : undefined;
  }

  /** The next slot that will fire (after what was already handled), or undefined (disabled, invalid, ended). */
  nextFire(t: Tracked): number | undefined {
    const def = t.entry.def;
    if (!def?.enabled) return undefined;
    return nextSlotAfter(def, Math.max(t.cursor, this.o.clock.now() - 1));
  }

  approvalOf(entry: ScheduleEntry, route: Pick<ResolvedRoute, 'approval_mode' | 'schedule_approval_mode'>, boundSessionMode?: ApprovalMode): ScheduledApproval | undefined {
    if (!entry.def) return undefined;
    const g = this.grants.get(entry.id);
    return scheduledApproval({
      requested: entry.def.approvalMode,
      route,
      ...(boundSessionMode ? { boundSessionMode } : {}),
      ...(g ? { grant: g } : {}),
      definitionHash: definitionHash(entry.def),
    });
  }

  deliveryProblem(entry: ScheduleEntry): string | undefined {
    return entry.def ? this.o.executor.deliveryProblem(entry) : undefined;
  }

  /** Run now (API, CLI): through the schedule's lane, enabled or not. */
  async runNow(idOrName: string): Promise<RunNowResult> {
    const t = this.find(idOrName);
    if (!t) return { ok: false, code: 'not_found', message: `no schedule ${JSON.stringify(idOrName)}` };
    if (!t.entry.def) return { ok: false, code: 'invalid', message: t.entry.error?.message ?? 'the schedule file is invalid' };
    if (t.lane.running && t.lane.queued) return { ok: false, code: 'already_queued', message: `${t.entry.id} is running and one run is already waiting` };
    return this.serial(async () => {
      let at = this.o.clock.now();
      let row: ScheduleRunRow | undefined;
      for (let i = 0; i < 5 && !row; i++) row = await this.o.store.addScheduleRun(t.entry.ref, at++, 'queued', this.o.clock.now(), { kind: 'manual' });
      if (!row) return { ok: false, code: 'already_queued', message: `${t.entry.id} already has runs at this instant` } as const;
      this.own.add(row.id);
      return { ok: true, run: (await this.admit(t, row)) ?? row } as const;
    });
  }

  /** Enable or disable by editing the file; an `approvalMode` also writes that mode and grants it to this exact definition. */
  async setEnabled(idOrName: string, enabled: boolean, o: { approvalMode?: ApprovalMode; actor?: string | null } = {}): Promise<EditOutcome> {
    const t = this.find(idOrName);
    if (!t) return { ok: false, code: 'not_found', message: `no schedule ${JSON.stringify(idOrName)}` };
    if (!t.entry.def) return { ok: false, code: 'invalid', message: t.entry.error?.message ?? 'the schedule file is invalid' };
    const edited = await editScheduleFile(t.entry.file, { enabled, ...(o.approvalMode ? { approval_mode: o.approvalMode } : {}) });
    if (!edited.ok) return { ok: false, code: 'io', message: edited.error };
    await this.reload();
    const now = this.tracked.get(t.entry.id);
    if (!now?.entry.def) return { ok: false, code: 'invalid', message: now?.entry.error?.message ?? 'the schedule file is invalid after the edit' };
    if (o.approvalMode) {
      const grant: ScheduleGrant = { ...now.entry.ref, approval_mode: o.approvalMode, definition_hash: definitionHash(now.entry.def), granted_by: o.actor ?? null, granted_at: this.o.clock.now() };
      await this.o.store.setScheduleGrant(grant);
      this.grants.set(now.entry.id, grant);
    }
    this.o.logger.info({ schedule: now.entry.id, enabled, approval_mode: o.approvalMode }, `schedule ${enabled ? 'enabled' : 'disabled'} by the operator`);
    return { ok: true };
  }

  // ------------------------------------------------------------------ internals
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch((err: unknown) => this.o.logger.error({ err }, 'scheduler step failed'));
    return run;
  }

  private repeat(which: 'rescan' | 'poll', everyMs: number, fn: () => Promise<unknown>): void {
    if (everyMs <= 0) return;
    const tick = () => {
      if (this.stopped) return;
      void fn().finally(() => {
        if (!this.stopped) this.timers[which] = this.o.clock.setTimeout(tick, everyMs);
      });
    };
    this.timers[which] = this.o.clock.setTimeout(tick, everyMs);
  }

  private refs() {
    return this.entries().map((t) => t.entry.ref);
  }

  private async reloadNow(marks?: Map<string, number>): Promise<void> {
    const now = this.o.clock.now();
    const catalog = await loadCatalog(this.o.config);
    this.watcher?.sync(routedAgents(this.o.config).flatMap(({ project, agent }) => scheduleDirOf(this.o.config.home, project, agent) ?? []));
    const seen = new Set<string>();
    for (const entry of catalog) {
      seen.add(entry.id);
      let t = this.tracked.get(entry.id);
      if (t) {
        t.entry = entry;
        t.gone = false;
      } else {
        t = { entry, cursor: marks?.get(entry.id) ?? now - this.graceMs, lane: new FireLane(), gone: false };
        this.tracked.set(entry.id, t);
      }
      const message = entry.error?.message;
      if (message !== t.logged) {
        if (message) this.o.logger.warn({ schedule: entry.id, file: entry.file, errors: entry.error!.issues }, `schedule file invalid, skipped:\n${message}`);
        else if (t.logged !== undefined) this.o.logger.info({ schedule: entry.id, file: entry.file }, 'schedule file valid again');
        t.logged = message;
      }
    }
    for (const [id, t] of this.tracked) {
      if (seen.has(id)) continue;
      t.gone = true;
      if (!t.lane.busy) this.tracked.delete(id);
    }
  }

  /** Looks at every schedule: records missed slots, fires the due one, writes watermarks, arms the next look. */
  private async evaluate(): Promise<void> {
    if (this.stopped) return;
    const now = this.o.clock.now();
    for (const t of this.tracked.values()) {
      const def = t.entry.def;
      if (t.gone || !def?.enabled) {
        t.cursor = Math.max(t.cursor, now);
        continue;
      }
      const { slots, skipped } = slotsBetween(def, t.cursor, now, MAX_MISSED_ROWS + 1);
      t.cursor = Math.max(t.cursor, now);
      if (slots.length === 0) continue;
      const latest = slots[slots.length - 1];
      const fires = now - latest <= this.graceMs;
      const missed = fires ? slots.slice(0, -1) : slots;
      if (missed.length + skipped > 0) {
        this.o.logger.warn({ schedule: t.entry.id, missed: missed.length + skipped, recorded: missed.length }, 'schedule slots passed while the gateway was not running: recorded as missed, not replayed');
      }
      for (const s of missed) await this.o.store.addScheduleRun(t.entry.ref, s, 'missed', now, { error: MISSED_DOWN });
      if (fires) await this.offer(t, latest, 'slot');
    }
    await this.o.store.markSchedulesWatched(this.refs(), now);
    this.arm(now);
  }

  private arm(now: number): void {
    if (this.stopped) return;
    if (this.timers.tick) this.o.clock.clearTimeout(this.timers.tick);
    let next = now + (this.o.tickMs ?? DEFAULT_TICK_MS);
    for (const t of this.tracked.values()) {
      const s = t.gone ? undefined : this.nextFire(t);
      if (s !== undefined && s < next) next = s;
    }
    this.timers.tick = this.o.clock.setTimeout(() => void this.serial(() => this.evaluate()), Math.max(0, next - now));
  }

  private async offer(t: Tracked, slot: number, kind: ScheduleRunKind): Promise<void> {
    const row = await this.o.store.addScheduleRun(t.entry.ref, slot, 'queued', this.o.clock.now(), { kind });
    if (!row) return;
    this.own.add(row.id);
    await this.admit(t, row);
  }

  /** Starts, queues or refuses a queued run row; returns the row as it now stands. */
  private async admit(t: Tracked, row: ScheduleRunRow): Promise<ScheduleRunRow | undefined> {
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
          approval: (route, bound) => this.approvalOf(entry, route, bound)!,
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
      if (this.stopped) return;
      const why = t.gone ? 'its schedule file was removed' : !t.entry.def ? 'its schedule file became invalid' : next.kind === 'slot' && !t.entry.def.enabled ? 'its schedule was disabled' : undefined;
      if (why === undefined) {
        this.launch(t, next);
        return;
      }
      this.own.delete(next.id);
      await this.o.store.finishScheduleRun(next.id, 'missed', `not fired: ${why} before it could run`, this.o.clock.now());
    }
    if (t.gone && this.tracked.get(t.entry.id) === t) this.tracked.delete(t.entry.id);
  }

  /** Runs another process queued (`penguin-gateway schedules run`) join their schedule's lane. */
  private async adoptForeign(): Promise<void> {
    if (this.stopped) return;
    for (const row of (await this.o.store.listScheduleRuns({ status: 'queued', limit: 100 })).reverse()) {
      if (this.own.has(row.id)) continue;
      this.own.add(row.id);
      const t = this.tracked.get(scheduleId(row));
      if (!t || t.gone || !t.entry.def) {
        this.own.delete(row.id);
        await this.o.store.finishScheduleRun(row.id, 'failed', t?.entry.error?.message ?? `no schedule ${scheduleId(row)} in this gateway`, this.o.clock.now());
        continue;
      }
      await this.admit(t, row);
    }
  }
}
