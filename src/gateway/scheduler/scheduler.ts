/**
 * Scheduler (gateway.md §9, engine.md §8.4): keeps every routed agent's schedules (re-read on change) and
 * makes each due slot one run row, handed to FireRuns (one runs, one waits, the rest `missed`). A slot that
 * passed while the gateway was down (found from each schedule's watermark) is recorded `missed`, except one
 * at most `graceMs` old, which still fires. Times come from the injected clock; manual runs (API, queued rows
 * the CLI wrote) share the lanes. Enable/disable edit the file; an approval mode given then is granted.
 */
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { ApprovalMode } from '../../core/state';
import type { ResolvedRoute } from '../config';
import type { Logger } from '../logger';
import type { GatewayStore, ScheduleGrant, ScheduleRunKind, ScheduleRunRow } from '../store';
import { FireRuns, type FireExecutor, type FireOutcome, type Tracked, type ValidEntry } from './fire-runs';
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
  /** This gateway instance (runs it fires carry it) and the other live ones on the same database, whose runs a start leaves alone. */
  instance?: { id: string; livePeers(): Promise<string[]> };
}

export type RunNowResult =
  | { ok: true; run: ScheduleRunRow }
  | { ok: false; code: 'not_found' | 'invalid' | 'already_queued'; message: string };

export type EditOutcome = { ok: true } | { ok: false; code: 'not_found' | 'invalid' | 'io'; message: string };

export class Scheduler {
  private readonly tracked = new Map<string, Tracked>();
  private readonly grants = new Map<string, ScheduleGrant>();
  private readonly runs: FireRuns;
  private timers: { tick?: TimerHandle; rescan?: TimerHandle; poll?: TimerHandle } = {};
  private chain: Promise<unknown> = Promise.resolve();
  private watcher?: DirWatcher;
  private stopped = false;
  private readonly graceMs: number;

  constructor(private readonly o: SchedulerOptions) {
    this.graceMs = o.graceMs ?? DEFAULT_GRACE_MS;
    this.runs = new FireRuns({
      store: o.store,
      instanceId: o.instance?.id ?? null,
      clock: o.clock,
      logger: o.logger,
      executor: o.executor,
      approvalOf: (entry, route, bound) => this.approvalOf(entry, route, bound),
      tracked: (id) => this.tracked.get(id),
      stopped: () => this.stopped,
      forget: (t) => {
        if (this.tracked.get(t.entry.id) === t) this.tracked.delete(t.entry.id);
      },
    });
  }

  // ------------------------------------------------------------------ lifecycle
  async start(): Promise<void> {
    const now = this.o.clock.now();
    const peers = (await this.o.instance?.livePeers()) ?? [];
    const failed = await this.o.store.failUnfinishedScheduleRuns('the gateway stopped (or was not running) before this run could finish', now, peers);
    if (failed.length > 0) this.o.logger.warn({ runs: failed.map((r) => r.id) }, 'scheduled runs of the previous process marked failed');
    for (const g of await this.o.store.listScheduleGrants()) this.grants.set(scheduleId(g), g);
    const marks = new Map((await this.o.store.listScheduleWatermarks()).map((w) => [scheduleId(w), w.watched_until]));
    this.watcher = this.o.watch?.(() => void this.reload());
    await this.serial(() => this.reloadNow(marks));
    await this.serial(() => this.evaluate());
    this.repeat('rescan', this.o.rescanMs ?? DEFAULT_TICK_MS, () => this.reload());
    this.repeat('poll', this.o.pollMs ?? 2000, () => this.serial(() => this.runs.adoptForeign()));
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
  settled(): Promise<void> {
    return this.runs.settled();
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
      for (let i = 0; i < 5 && !row; i++) row = await this.o.store.addScheduleRun(t.entry.ref, at++, 'queued', this.o.clock.now(), { kind: 'manual', instance_id: this.o.instance?.id ?? null });
      if (!row) return { ok: false, code: 'already_queued', message: `${t.entry.id} already has runs at this instant` } as const;
      this.runs.claim(row.id);
      return { ok: true, run: (await this.runs.admit(t, row)) ?? row } as const;
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

  /** A run another instance fired for a conversation this instance owns: it runs here, and its outcome goes back. */
  async fireHandedOver(runId: number): Promise<FireOutcome> {
    const row = await this.o.store.getScheduleRun(runId);
    const t = row && this.tracked.get(scheduleId(row));
    if (!row || !t || t.gone || !t.entry.def) return { status: 'failed', error: `the instance owning the conversation has no valid schedule for run ${runId}` };
    return this.o.executor.fire({
      entry: t.entry as ValidEntry, run: row, handedOver: true,
      approval: (route, bound) => this.approvalOf(t.entry, route, bound)!,
      started: async (sessionId) => {
        await this.o.store.startScheduleRun(row.id, sessionId, this.o.clock.now());
      },
    });
  }

  private async offer(t: Tracked, slot: number, kind: ScheduleRunKind): Promise<void> {
    const row = await this.o.store.addScheduleRun(t.entry.ref, slot, 'queued', this.o.clock.now(), { kind, instance_id: this.o.instance?.id ?? null });
    if (!row) return;
    this.runs.claim(row.id);
    await this.runs.admit(t, row);
  }

}
