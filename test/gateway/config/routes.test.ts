/** resolveRoute: the most specific matching route wins, ties go to the first, no match ⇒ default route. */
import { resolveRoute, routeNameOf, type GatewayConfig, type ResolvedRoute, type RouteMatch } from '../../../src/gateway/config';

const route = (name: string, match?: RouteMatch): ResolvedRoute => ({
  name, ...(match ? { match } : {}), project: 'p', agent: name, approval_mode: 'read-only', workspace_policy: 'temp', approvers: [], access: { users: [], roles: [], channels: [] }, tools: { network: true },
});

const config: Pick<GatewayConfig, 'routes' | 'default_route'> = {
  default_route: route('default'),
  routes: [
    route('slack-any', { platform: 'slack' }),
    route('slack-team', { platform: 'slack', workspace: 'T1' }),
    route('slack-chan', { platform: 'slack', channel: 'C1' }),
    route('slack-team-chan', { platform: 'slack', workspace: 'T1', channel: 'C1' }),
    route('slack-team-again', { platform: 'slack', workspace: 'T1' }),
    route('discord-guild', { platform: 'discord', guild: 'G1' }),
    route('tg-chat', { platform: 'telegram', chat: '-100' }),
  ],
};
const pick = (scope: Parameters<typeof resolveRoute>[1]) => resolveRoute(config, scope).name;

describe('resolveRoute', () => {
  it('prefers scope + channel over channel over scope over platform', () => {
    expect(pick({ platform: 'slack', workspace: 'T1', channel: 'C1' })).toBe('slack-team-chan');
    expect(pick({ platform: 'slack', workspace: 'T2', channel: 'C1' })).toBe('slack-chan');
    expect(pick({ platform: 'slack', workspace: 'T1', channel: 'C9' })).toBe('slack-team');
    expect(pick({ platform: 'slack', workspace: 'T9', channel: 'C9' })).toBe('slack-any');
  });

  it('falls back to the default route when nothing matches', () => {
    expect(pick({ platform: 'discord', guild: 'G2', channel: 'X' })).toBe('default');
    expect(pick({ platform: 'discord', channel: 'X' })).toBe('default');
    expect(pick({ platform: 'telegram', chat: '-100' })).toBe('tg-chat');
    expect(pick({ platform: 'telegram', chat: '42' })).toBe('default');
    expect(pick({ platform: 'web' })).toBe('default');
  });

  it('never matches a route whose scope is set when the conversation has none', () => {
    expect(pick({ platform: 'discord' })).toBe('default');
  });

  it('derives stable names from the match', () => {
    expect(routeNameOf({ platform: 'slack', workspace: 'T1', channel: 'C1' })).toBe('slack:T1:C1');
    expect(routeNameOf({ platform: 'slack', channel: 'C1' })).toBe('slack:*:C1');
    expect(routeNameOf({ platform: 'discord', guild: 'G1' })).toBe('discord:G1');
    expect(routeNameOf({ platform: 'web' })).toBe('web');
  });
});
