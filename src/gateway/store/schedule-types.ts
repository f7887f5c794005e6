/**
 * The schedule runs' shapes: one row per fire (slot or manual) with its status, session and duration, the
 * schedule a run belongs to, the operator's approval grant bound to a definition, and the store methods.
 */
import type { ApprovalModeValue } from './types';

export type ScheduleRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'missed';
/** `slot`: the schedule's own time came; `manual`: the operator asked for a run now (API, CLI). */
export type ScheduleRunKind = 'slot' | 'manual';
export interface ScheduleRunRow {
  id: number;
  schedule_name: string;
  project_id: string;
  agent_id: string;
  /** The slot's instant (epoch ms); for a manual run, when it was asked for. */
  slot: number;
  kind: ScheduleRunKind;
  status: ScheduleRunStatus;
  session_id: string | null;
  started_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: number;
  /** The gateway instance that fired or adopted it; null for a run the CLI queued and nobody took yet. */
  instance_id: string | null;
}
export interface ScheduleRef {
  schedule_name: string;
  project_id: string;
  agent_id: string;
}
/** An approval mode the operator granted one schedule, valid while the definition hashes to `definition_hash`. */
export interface ScheduleGrant extends ScheduleRef {
  approval_mode: ApprovalModeValue;
  definition_hash: string;
  granted_by: string | null;
  granted_at: number;
}
export interface ScheduleStore {
  /** Records a slot as `queued` or `missed`; undefined when that slot already has a run. */
  addScheduleRun(ref: ScheduleRef, slot: number, status: 'queued' | 'missed', at?: number, extra?: { kind?: ScheduleRunKind; error?: string | null; instance_id?: string | null }): Promise<ScheduleRunRow | undefined>;
  /** Takes a queued run nobody took yet for `instanceId`; false when another instance was first. */
  claimScheduleRun(id: number, instanceId: string): Promise<boolean>;
  getScheduleRun(id: number): Promise<ScheduleRunRow | undefined>;
  startScheduleRun(id: number, sessionId: string | null, at?: number): Promise<ScheduleRunRow | undefined>;
  /** `missed`: a queued fire that never started (its schedule was disabled or removed first). */
  finishScheduleRun(id: number, status: 'completed' | 'failed' | 'missed', error?: string | null, at?: number): Promise<ScheduleRunRow | undefined>;
  /** At start-up: queued and running runs of a dead process become failed with `error`; returns them. */
  /** Runs still queued or running are failed with `error`, except those fired by the instances in `keep` (live peers). */
  failUnfinishedScheduleRuns(error: string, at?: number, keep?: readonly string[]): Promise<ScheduleRunRow[]>;
  /** Runs still queued or running that these (dead) instances fired are failed with `error`. */
  failScheduleRunsOf(instances: readonly string[], error: string, at?: number): Promise<ScheduleRunRow[]>;
  /** Newest slot first. */
  listScheduleRuns(filter?: Partial<ScheduleRef> & { status?: ScheduleRunStatus; limit?: number }): Promise<ScheduleRunRow[]>;
  /** The schedules were watched up to `at` (a later start counts their slots after it as missed). */
  markSchedulesWatched(refs: readonly ScheduleRef[], at: number): Promise<void>;
  listScheduleWatermarks(): Promise<(ScheduleRef & { watched_until: number })[]>;
  /** Replaces the schedule's grant. */
  setScheduleGrant(g: ScheduleGrant): Promise<void>;
  listScheduleGrants(): Promise<ScheduleGrant[]>;
}
