/**
 * What the admin API, the CLI and the `/schedules` chat command show of a schedule: one plain JSON object
 * per schedule file (documented in admin/routes/schedules.ts), and the chat listing of a route's schedules
 * with each next fire in its schedule's time zone (UTC for period and one-shot schedules).
 */
import { formatDeliveryTarget, targetThread } from '../../adapters/contract/delivery-target';
import { bindingKey, type ThreadRef } from '../../adapters/contract/thread-ref';
import type { StateIssue } from '../../core/state';
import type { GatewayConfig, ResolvedRoute } from '../config';
import type { GatewayStore, ScheduleRunRow } from '../store';
import type { ScheduledApproval } from './approval-rule';
import type { Tracked } from './fire-runs';
import type { Scheduler } from './scheduler';

export interface ScheduleView {
  id: string;
  project: string;
  agent: string;
  name: string;
  file: string;
  valid: boolean;
  /** Why the file is skipped: one per problem, with the key path. */
  errors: StateIssue[];
  enabled: boolean | null;
  prompt: string | null;
  schedule: { kind: 'cron'; cron: string; timezone: string } | { kind: 'period'; period: string } | { kind: 'once' } | null;
  start_at: string | null;
  end_at: string | null;
  next_fire_at: string | null;
  deliver_to: string | null;
  /** Where runs post: the target (deliver_to, or the playground conversation), or `session <id>`'s conversation. */
  delivers_to: string | null;
  session_id: string | null;
  delivery_problem: string | null;
  approval: ScheduledApproval | null;
  max_duration_ms: number | null;
  running: boolean;
  queued: boolean;
  last_run: ScheduleRunRow | null;
}

const iso = (d: Date | number | undefined) => (d === undefined ? null : new Date(d).toISOString());

function routeNamed(config: Pick<GatewayConfig, 'routes' | 'default_route'>, name: string | null | undefined): ResolvedRoute {
  return config.routes.find((r) => r.name === name) ?? config.default_route;
}

export async function scheduleView(scheduler: Scheduler, t: Tracked, deps: { store: GatewayStore; config: Pick<GatewayConfig, 'routes' | 'default_route'> }): Promise<ScheduleView> {
  const { entry } = t;
  const def = entry.def;
  const [last] = await deps.store.listScheduleRuns({ ...entry.ref, limit: 1 });
  let approval: ScheduledApproval | null = null;
  if (def) {
    const bound = def.sessionId !== undefined ? await deps.store.getSession(def.sessionId) : undefined;
    const route = entry.route ?? routeNamed(deps.config, bound?.route);
    approval = scheduler.approvalOf(entry, route, bound?.approval_mode) ?? null;
  }
  const next = scheduler.nextFire(t);
  return {
    id: entry.id,
    project: entry.ref.project_id,
    agent: entry.ref.agent_id,
    name: entry.ref.schedule_name,
    file: entry.file,
    valid: def !== undefined,
    errors: entry.error?.issues ?? [],
    enabled: def?.enabled ?? null,
    prompt: def?.prompt ?? null,
    schedule: !def ? null : def.cron !== undefined ? { kind: 'cron', cron: def.cron, timezone: def.timezone ?? 'UTC' } : def.period !== undefined ? { kind: 'period', period: def.period } : { kind: 'once' },
    start_at: iso(def?.startAt),
    end_at: iso(def?.endAt),
    next_fire_at: iso(next),
    deliver_to: def?.deliverTo ?? null,
    delivers_to: entry.target ? formatDeliveryTarget(entry.target) : def?.sessionId !== undefined ? `session ${def.sessionId}` : null,
    session_id: def?.sessionId ?? null,
    delivery_problem: scheduler.deliveryProblem(entry) ?? null,
    approval,
    max_duration_ms: def?.maxDurationMs ?? null,
    running: t.lane.running !== undefined,
    queued: t.lane.queued !== undefined,
    last_run: last ?? null,
  };
}

/** `Mon, 3 Aug 2026, 09:00 (Europe/Berlin)`. */
export function formatInZone(ms: number, timezone: string): string {
  const f = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${f.format(ms)} (${timezone})`;
}

/** The `/schedules` answer: the schedules of the route's agent, each with its next fire in its own time zone. */
export function chatListing(scheduler: Scheduler, route: Pick<ResolvedRoute, 'project' | 'agent'>, here?: ThreadRef): string {
  const mine = scheduler.entries().filter((t) => t.entry.ref.project_id === route.project && t.entry.ref.agent_id === route.agent);
  if (mine.length === 0) return `No schedules for ${route.project}/${route.agent}. An agent's schedules are the files in its agent_state/schedule/ directory.`;
  const lines = mine.map((t) => {
    const def = t.entry.def;
    const name = `\`${t.entry.ref.schedule_name}\``;
    if (!def) return `• ${name} — invalid file, skipped (${t.entry.error?.issues[0]?.path || 'syntax'}: expected ${t.entry.error?.issues[0]?.expected ?? 'a valid file'})`;
    const tz = def.cron !== undefined ? (def.timezone ?? 'UTC') : 'UTC';
    const when = def.cron !== undefined ? `cron \`${def.cron}\`` : def.period !== undefined ? `every ${def.period}` : 'once';
    const next = scheduler.nextFire(t);
    const state = !def.enabled ? 'disabled' : next === undefined ? 'no more runs' : `next ${formatInZone(next, tz)}`;
    const thread = t.entry.target && targetThread(t.entry.target);
    const target = here !== undefined && thread && bindingKey(thread) === bindingKey(here) ? ' · posts here' : '';
    return `• ${name} — ${when} · ${state}${t.lane.running ? ' · running now' : ''}${target}`;
  });
  return [`Schedules of ${route.project}/${route.agent}:`, ...lines].join('\n');
}
