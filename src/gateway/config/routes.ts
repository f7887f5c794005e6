/**
 * Routes: from the file's entries to resolved routes (each key a route leaves out comes from
 * `default_route`), with the rules zod cannot see: scope keys valid for the platform, a path for `fixed`
 * workspaces, unique names and no duplicate matches. `resolveRoute` is pure: the most specific matching
 * route wins (scope + channel > channel > scope > platform only), ties go to the first in the file.
 */
import { isAbsolute } from 'node:path';
import type { PathSegment } from './errors';
import { DEFAULTS, type FileConfig, type FileRouteFields, type RouteMatch } from './schema';
import type { GatewayConfig, ResolvedRoute, RouteScope } from './types';
import type { Platform } from './user-ref';

export type ReportError = (path: PathSegment[], expected: string, found?: string) => void;

const SCOPE_KEYS: Record<Platform, readonly ('workspace' | 'guild' | 'chat' | 'channel')[]> = {
  slack: ['workspace', 'channel'],
  discord: ['guild', 'channel'],
  telegram: ['chat'],
  web: [],
};

export function scopeIdOf(m: { workspace?: string; guild?: string; chat?: string }): string | undefined {
  return m.workspace ?? m.guild ?? m.chat;
}

/** `slack:T1:C2`, `slack:*:C2`, `discord:G1`, `telegram:-100123`, `web`. */
export function routeNameOf(m: RouteMatch): string {
  const parts: string[] = [m.platform, scopeIdOf(m) ?? '*', m.channel ?? '*'];
  while (parts.length > 1 && parts[parts.length - 1] === '*') parts.pop();
  return parts.join(':');
}

export function resolveRoutes(
  file: Pick<FileConfig, 'routes' | 'default_route'> & { tools?: { network: boolean } },
  expand: (p: string) => string,
  report: ReportError,
): { routes: ResolvedRoute[]; default_route: ResolvedRoute } {
  const d = file.default_route;
  const network = file.tools?.network ?? DEFAULTS.network;
  const defaultRoute = finish(
    {
      name: 'default',
      project: d.project ?? DEFAULTS.project,
      agent: d.agent ?? DEFAULTS.agent,
      approval_mode: d.approval_mode ?? DEFAULTS.approvalMode,
      ...(d.schedule_approval_mode ? { schedule_approval_mode: d.schedule_approval_mode } : {}),
      workspace_policy: d.workspace_policy ?? DEFAULTS.workspacePolicy,
      workspace_path: d.workspace_path,
      approvers: d.approvers ?? [],
      access: d.access ?? { users: [], roles: [], channels: [] },
      tools: { network: d.tools?.network ?? network },
    },
    ['default_route'],
    d,
    expand,
    report,
  );

  const routes: ResolvedRoute[] = [];
  const names = new Map<string, number>();
  const matches = new Map<string, number>();
  file.routes.forEach((r, i) => {
    const at: PathSegment[] = ['routes', i];
    for (const key of ['workspace', 'guild', 'chat', 'channel'] as const) {
      if (r.match[key] !== undefined && !SCOPE_KEYS[r.match.platform].includes(key)) {
        const allowed = SCOPE_KEYS[r.match.platform];
        report([...at, 'match', key], allowed.length ? `a scope key valid for ${r.match.platform} (${allowed.join(', ')})` : `no scope keys for ${r.match.platform}`, `key "${key}"`);
      }
    }
    const ownsWorkspace = r.workspace_policy !== undefined;
    const route = finish(
      {
        name: r.name ?? routeNameOf(r.match),
        match: r.match,
        project: r.project ?? defaultRoute.project,
        agent: r.agent ?? defaultRoute.agent,
        approval_mode: r.approval_mode ?? defaultRoute.approval_mode,
        ...((r.schedule_approval_mode ?? defaultRoute.schedule_approval_mode) ? { schedule_approval_mode: r.schedule_approval_mode ?? defaultRoute.schedule_approval_mode } : {}),
        // A route that picks its own workspace policy never inherits the default's path.
        workspace_policy: r.workspace_policy ?? defaultRoute.workspace_policy,
        workspace_path: ownsWorkspace || r.workspace_path !== undefined ? r.workspace_path : defaultRoute.workspace_path,
        approvers: r.approvers ?? defaultRoute.approvers,
        access: r.access ?? defaultRoute.access,
        tools: { network: r.tools?.network ?? defaultRoute.tools.network },
      },
      at,
      r,
      expand,
      report,
    );
    const key = JSON.stringify([r.match.platform, r.match.workspace, r.match.guild, r.match.chat, r.match.channel]);
    const prevMatch = matches.get(key);
    if (prevMatch !== undefined) report([...at, 'match'], `a match no earlier route has (routes[${prevMatch}] has the same one)`, 'a duplicate');
    else matches.set(key, i);
    if (route.name === 'default') report([...at, 'name'], 'a name other than "default" (reserved for default_route)', '"default"');
    const prevName = names.get(route.name);
    // A derived name repeats exactly when the match does, which is already reported.
    if (prevName !== undefined && (r.name !== undefined || prevMatch === undefined)) {
      report([...at, r.name ? 'name' : 'match'], `a unique route name (routes[${prevName}] is already named "${route.name}")`, `"${route.name}"`);
    } else if (prevName === undefined) names.set(route.name, i);
    routes.push(route);
  });
  return { routes, default_route: defaultRoute };
}

function finish(route: ResolvedRoute, at: PathSegment[], own: FileRouteFields, expand: (p: string) => string, report: ReportError): ResolvedRoute {
  const out: ResolvedRoute = { ...route };
  if (out.workspace_path !== undefined) {
    const raw = out.workspace_path;
    // Relative paths would depend on where the gateway happens to be started.
    if (!isAbsolute(raw) && raw !== '~' && !raw.startsWith('~/')) report([...at, 'workspace_path'], 'an absolute directory path (or one starting with ~/)');
    out.workspace_path = expand(raw);
  }
  if (out.workspace_policy === 'fixed' && out.workspace_path === undefined) {
    report([...at, own.workspace_policy !== undefined ? 'workspace_policy' : 'workspace_path'], 'a workspace_path with workspace_policy fixed', 'no workspace_path');
  }
  if (out.workspace_policy === 'temp' && own.workspace_path !== undefined) {
    report([...at, 'workspace_path'], 'no workspace_path with workspace_policy temp (each session gets its own temporary directory)');
  }
  if (out.workspace_policy === 'temp') delete out.workspace_path;
  return out;
}

function specificity(m: RouteMatch): number {
  return (scopeIdOf(m) !== undefined ? 1 : 0) + (m.channel !== undefined ? 2 : 0);
}

/** The route for a conversation scope: the most specific match, else the default route. */
export function resolveRoute(config: Pick<GatewayConfig, 'routes' | 'default_route'>, scope: RouteScope): ResolvedRoute {
  let best: ResolvedRoute | undefined;
  let bestScore = -1;
  for (const r of config.routes) {
    const m = r.match;
    if (!m || m.platform !== scope.platform) continue;
    if (m.workspace !== undefined && m.workspace !== scope.workspace) continue;
    if (m.guild !== undefined && m.guild !== scope.guild) continue;
    if (m.chat !== undefined && m.chat !== scope.chat) continue;
    if (m.channel !== undefined && m.channel !== scope.channel) continue;
    const score = specificity(m);
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best ?? config.default_route;
}
