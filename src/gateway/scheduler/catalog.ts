/**
 * The schedules the gateway runs: every `agent_state/schedule/*.toml` of every routed agent (default route
 * and routes), each judged on its own by the state layer and then by the gateway's rules — `deliver_to` a
 * known target form, routed to this very agent, and a `workspace` only inside what the delivery route gives.
 * An invalid file is an entry with its errors (path, key, expected, found); it never hides the others.
 */
import { resolve, sep } from 'node:path';
import { DELIVERY_TARGET_EXPECTED, parseDeliveryTarget, targetScope, type DeliveryTarget } from '../../adapters/contract/delivery-target';
import { agentPaths, fileError, loadSchedules, type ScheduleDefinition, type StateFileError, type StateIssue } from '../../core/state';
import { resolveRoute, type GatewayConfig, type ResolvedRoute } from '../config';
import type { ScheduleRef } from '../store';

/** Without `deliver_to` (and not bound to a session) a run posts to this playground conversation. */
export const implicitConversation = (name: string) => `schedule-${name}`;

export interface ScheduleEntry {
  /** `<project>:<agent>:<name>`. */
  id: string;
  ref: ScheduleRef;
  file: string;
  /** The parsed definition; absent when the file is invalid. */
  def?: ScheduleDefinition;
  /** Why the file is invalid (empty when valid). */
  error?: StateFileError;
  /** Where runs go: `deliver_to`, or the playground conversation when neither it nor `session_id` is set. */
  target?: DeliveryTarget;
  /** The route of the target's conversations (absent for a bound schedule without deliver_to: its session's conversation decides). */
  route?: ResolvedRoute;
}

export const scheduleId = (ref: ScheduleRef) => `${ref.project_id}:${ref.agent_id}:${ref.schedule_name}`;

/** Distinct (project, agent) pairs of the default route and every route, in config order. */
export function routedAgents(config: Pick<GatewayConfig, 'routes' | 'default_route'>): { project: string; agent: string }[] {
  const seen = new Set<string>();
  const out: { project: string; agent: string }[] = [];
  for (const r of [config.default_route, ...config.routes]) {
    const k = `${r.project}\u0000${r.agent}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ project: r.project, agent: r.agent });
  }
  return out;
}

/** The schedule directory of a routed agent; undefined when its ids cannot name a directory. */
export function scheduleDirOf(home: string, project: string, agent: string): string | undefined {
  try {
    return agentPaths(home, project, agent).scheduleDir;
  } catch {
    return undefined;
  }
}

function within(path: string, base: string): boolean {
  const p = resolve(path);
  const b = resolve(base);
  return p === b || p.startsWith(b.endsWith(sep) ? b : b + sep);
}

/** The gateway's rules for one valid definition; the issues name the key that is wrong. */
export function judgeDefinition(def: ScheduleDefinition, ref: ScheduleRef, config: Pick<GatewayConfig, 'routes' | 'default_route'>): { issues: StateIssue[]; target?: DeliveryTarget; route?: ResolvedRoute } {
  const issues: StateIssue[] = [];
  let target: DeliveryTarget | undefined;
  if (def.deliverTo !== undefined) {
    const t = parseDeliveryTarget(def.deliverTo);
    if (!t.ok) return { issues: [{ path: 'deliver_to', expected: DELIVERY_TARGET_EXPECTED, found: `string ${JSON.stringify(def.deliverTo)} (${t.error})` }] };
    target = t.target;
  } else if (def.sessionId === undefined) {
    target = { platform: 'web', conversation: implicitConversation(ref.schedule_name) };
  }
  if (!target) return { issues };
  const route = resolveRoute(config, { platform: target.platform, ...targetScope(target) });
  if (route.project !== ref.project_id || route.agent !== ref.agent_id) {
    const where = def.deliverTo !== undefined ? `string ${JSON.stringify(def.deliverTo)}` : `nothing (runs would post to the web playground conversation ${implicitConversation(ref.schedule_name)})`;
    issues.push({
      path: 'deliver_to',
      expected: `a conversation routed to this schedule's agent ${ref.project_id}/${ref.agent_id}`,
      found: `${where}, whose route "${route.name}" runs ${route.project}/${route.agent}`,
    });
  }
  if (def.workspace !== undefined) {
    const base = route.workspace_policy !== 'temp' ? route.workspace_path : undefined;
    if (base === undefined || !within(def.workspace, base)) {
      issues.push({
        path: 'workspace',
        expected: base === undefined
          ? `no workspace: route "${route.name}" gives each session a temporary one (a schedule cannot choose a directory its route does not give)`
          : `a directory inside route "${route.name}"'s workspace_path ${base}`,
        found: `string ${JSON.stringify(def.workspace)}`,
      });
    }
  }
  return { issues, target, route };
}

/** Every schedule of every routed agent, sorted by id. */
export async function loadCatalog(config: Pick<GatewayConfig, 'home' | 'routes' | 'default_route'>): Promise<ScheduleEntry[]> {
  const out: ScheduleEntry[] = [];
  for (const { project, agent } of routedAgents(config)) {
    const dir = scheduleDirOf(config.home, project, agent);
    if (!dir) continue;
    const { valid, invalid } = await loadSchedules(dir);
    for (const bad of invalid) {
      const ref = { project_id: project, agent_id: agent, schedule_name: bad.name };
      out.push({ id: scheduleId(ref), ref, file: bad.file, error: bad.error });
    }
    for (const def of valid) {
      const ref = { project_id: project, agent_id: agent, schedule_name: def.name };
      const judged = judgeDefinition(def, ref, config);
      const entry: ScheduleEntry = { id: scheduleId(ref), ref, file: def.file };
      if (judged.issues.length > 0) entry.error = fileError(def.file, 'invalid', judged.issues);
      else {
        entry.def = def;
        if (judged.target) entry.target = judged.target;
        if (judged.route) entry.route = judged.route;
      }
      out.push(entry);
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
