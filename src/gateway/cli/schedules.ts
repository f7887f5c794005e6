/**
 * `penguin-gateway schedules list` and `schedules run <id>`: the operator's side of the scheduler without
 * the dashboard. `list` reads the schedule files of every routed agent as the gateway would (invalid ones
 * with each problem) plus each one's last run; `run` queues a manual run in the database, which the running
 * gateway starts within seconds (one that is down fails it at its next start). Unknown or invalid: exit 1.
 */
import { formatDeliveryTarget } from '../../adapters/contract/delivery-target';
import { formatInZone, loadCatalog, nextSlotAfter, type ScheduleEntry } from '../scheduler';
import type { GatewayStore, ScheduleRunRow } from '../store';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli, withStore } from './config';
import { EXIT_FAILED, EXIT_OK, UsageError, line, type CliIO } from './io';

export const PICKUP_WAIT_MS = 5000;

function describeEntry(e: ScheduleEntry, now: number): string[] {
  const def = e.def;
  if (!def) return [`${e.id}  INVALID, skipped`, ...(e.error?.message.split('\n') ?? []).map((l) => `    ${l}`)];
  const tz = def.cron !== undefined ? (def.timezone ?? 'UTC') : 'UTC';
  const when = def.cron !== undefined ? `cron "${def.cron}" (${tz})` : def.period !== undefined ? `every ${def.period} from ${def.startAt.toISOString()}` : `once at ${def.startAt.toISOString()}`;
  const next = def.enabled ? nextSlotAfter(def, now) : undefined;
  const state = !def.enabled ? 'disabled' : next === undefined ? 'enabled, no runs left' : `next ${formatInZone(next, tz)}`;
  const where = e.target ? formatDeliveryTarget(e.target) : `session ${def.sessionId}`;
  return [`${e.id}  ${when}  ${state}  → ${where}`];
}

const runLine = (r: ScheduleRunRow) => `run #${r.id} (${r.kind}) ${r.status}${r.error ? `: ${r.error}` : ''}`;

function find(entries: ScheduleEntry[], idOrName: string): ScheduleEntry | undefined {
  const byId = entries.find((e) => e.id === idOrName);
  if (byId) return byId;
  const named = entries.filter((e) => e.ref.schedule_name === idOrName);
  return named.length === 1 ? named[0] : undefined;
}

async function waitForPickup(store: GatewayStore, id: number, io: CliIO, waitMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    const row = await store.getScheduleRun(id);
    if (row && row.status !== 'queued') {
      line(io.stdout, `The gateway took it: ${runLine(row)}.`);
      return;
    }
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  line(io.stdout, 'Not started yet: it waits for a run of this schedule that is still going, or for the gateway (a gateway that is not running marks it failed when it next starts).');
}

export async function schedulesCommand(args: CliArgs, io: CliIO, pickupWaitMs = PICKUP_WAIT_MS): Promise<number> {
  const [sub, id] = args.rest;
  if (sub !== 'list' && sub !== 'run') {
    throw new UsageError(sub === undefined ? 'schedules needs a subcommand: list or run <id>' : `unknown schedules subcommand ${JSON.stringify(sub)} (list or run <id>)`);
  }
  if (sub === 'run' && id === undefined) throw new UsageError('schedules run needs the schedule id (<project>:<agent>:<name>, or the name when it is unique)');
  expectNoMore(args, sub === 'run' ? 2 : 1);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  const entries = await loadCatalog(config);
  return withStore(config, io, async ({ store }) => {
    const now = Date.now();
    if (sub === 'list') {
      if (entries.length === 0) {
        line(io.stdout, 'No schedules: routed agents have no files in agent_state/schedule/.');
        return EXIT_OK;
      }
      for (const e of entries) {
        for (const l of describeEntry(e, now)) line(io.stdout, l);
        const [last] = await store.listScheduleRuns({ ...e.ref, limit: 1 });
        if (last) line(io.stdout, `    last: ${runLine(last)}, slot ${new Date(last.slot).toISOString()}`);
      }
      const invalid = entries.filter((e) => !e.def).length;
      line(io.stdout);
      line(io.stdout, `${entries.length} schedule${entries.length === 1 ? '' : 's'}${invalid ? `, ${invalid} invalid (skipped by the gateway)` : ''}.`);
      return EXIT_OK;
    }
    const e = find(entries, id!);
    if (!e) {
      line(io.stderr, `penguin-gateway: no schedule ${JSON.stringify(id)} (see \`penguin-gateway schedules list\`)`);
      return EXIT_FAILED;
    }
    if (!e.def) {
      line(io.stderr, `penguin-gateway: ${e.id} is invalid and cannot run:\n${e.error?.message ?? ''}`);
      return EXIT_FAILED;
    }
    let row: ScheduleRunRow | undefined;
    for (let at = now; !row && at < now + 5; at++) row = await store.addScheduleRun(e.ref, at, 'queued', now, { kind: 'manual' });
    if (!row) {
      line(io.stderr, `penguin-gateway: ${e.id} already has a run queued at this instant`);
      return EXIT_FAILED;
    }
    line(io.stdout, `✓ queued ${runLine(row)} of ${e.id}; the running gateway starts it within seconds.`);
    await waitForPickup(store, row.id, io, pickupWaitMs);
    return EXIT_OK;
  });
}
