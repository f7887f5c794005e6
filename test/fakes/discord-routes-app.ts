/**
 * Bot, application, guild and command REST routes of the fake Discord API: gateway discovery
 * (`/gateway`, `/gateway/bot` pointing at the fake's websocket with shards and session_start_limit),
 * the bot user and application, users, guilds and members, and global / per-guild application
 * commands (list, get, create, edit, delete, bulk overwrite) with their daily create budget.
 */
import { dcErrors } from './discord-errors';
import { route, type RouteDef, type RouteResult } from './discord-router';
import type { DcCommand } from './discord-types';
import { channelJson, guildJson, memberJson, userJson } from './discord-wire';
import type { RestWorld } from './discord-world';

export function appRoutes(w: RestWorld): RouteDef[] {
  const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
  const requireApp = (app: string): void => {
    if (app !== w.applicationId) throw dcErrors.missingAccess();
  };
  const requireGuild = (id: string) => {
    const g = w.store.guilds.get(id);
    if (!g) throw dcErrors.unknownGuild();
    if (!g.members.has(w.store.bot.id)) throw dcErrors.missingAccess();
    return g;
  };
  const commandRoutes = (prefix: string, scopeOf: (p: Record<string, string>) => string, tag: string): RouteDef[] => {
    const scope = (p: Record<string, string>): string => {
      requireApp(p.app);
      const s = scopeOf(p);
      if (s !== 'global') requireGuild(s);
      return s;
    };
    const found = (c: DcCommand | undefined): DcCommand => {
      if (!c) throw dcErrors.unknownCommand();
      return c;
    };
    const opts = { group: 'commands' as const, major: tag === 'Guild' ? ('guild' as const) : undefined };
    return [
      route('GET', prefix, `list${tag}Commands`, opts, ({ params }) => ok(w.commands.list(scope(params)))),
      route('PUT', prefix, `bulkOverwrite${tag}Commands`, opts, ({ params, raw }) => {
        const s = scope(params);
        const list = w.commands.bulkOverwrite(s, raw ?? []);
        w.changed();
        return ok(list);
      }),
      route('POST', prefix, `create${tag}Command`, opts, ({ params, body }) => {
        const { command, created } = w.commands.create(scope(params), body);
        w.changed();
        return ok(command, created ? 201 : 200);
      }),
      route('GET', `${prefix}/:command`, `get${tag}Command`, opts, ({ params }) => ok(found(w.commands.get(scope(params), params.command)))),
      route('PATCH', `${prefix}/:command`, `edit${tag}Command`, opts, ({ params, body }) => {
        const c = found(w.commands.edit(scope(params), params.command, body));
        w.changed();
        return ok(c);
      }),
      route('DELETE', `${prefix}/:command`, `delete${tag}Command`, opts, ({ params }) => {
        if (!w.commands.delete(scope(params), params.command)) throw dcErrors.unknownCommand();
        w.changed();
        return { status: 204 };
      }),
    ];
  };

  return [
    route('GET', '/gateway', 'getGateway', { auth: false }, () => ok({ url: w.gatewayUrl })),
    route('GET', '/gateway/bot', 'getGatewayBot', {}, () => ok({ url: w.gatewayUrl, shards: 1, session_start_limit: w.sessionStartLimit() })),
    route('GET', '/users/@me', 'getCurrentUser', {}, () =>
      ok({ ...userJson(w.botUser), verified: true, mfa_enabled: false, email: null, flags: 0, locale: 'en-US', premium_type: 0 }),
    ),
    route('GET', '/users/:user', 'getUser', {}, ({ params }) => {
      const u = w.store.users.get(params.user);
      if (!u) throw dcErrors.unknownUser();
      return ok(userJson(u.user));
    }),
    route('GET', '/applications/@me', 'getCurrentApplication', {}, () =>
      ok({
        id: w.applicationId, name: w.applicationName, icon: null, description: '', summary: '', type: null, hook: true, bot_public: true,
        bot_require_code_grant: false, verify_key: '0'.repeat(64), flags: w.applicationFlags, bot: userJson(w.botUser),
        owner: { id: w.store.resolveUser('guild-owner').id, username: 'guild-owner', discriminator: '0', global_name: null, avatar: null, public_flags: 0, flags: 0 },
        team: null, guild_id: null, redirect_uris: [], interactions_endpoint_url: null, approximate_guild_count: w.store.guilds.size,
        integration_types_config: { '0': {} }, install_params: { scopes: ['bot', 'applications.commands'], permissions: '0' },
      }),
    ),
    route('GET', '/guilds/:guild', 'getGuild', {}, ({ params }) => ok(guildJson(requireGuild(params.guild)))),
    route('GET', '/guilds/:guild/channels', 'getGuildChannels', {}, ({ params }) =>
      ok(requireGuild(params.guild).channelIds.map((cid) => channelJson(w.store, w.store.channels.get(cid)!))),
    ),
    route('GET', '/guilds/:guild/members/:user', 'getGuildMember', {}, ({ params }) => {
      const g = requireGuild(params.guild);
      if (!w.store.users.has(params.user)) throw dcErrors.unknownUser();
      const m = g.members.get(params.user);
      if (!m) throw dcErrors.unknownMember();
      return ok(memberJson(w.store, m));
    }),
    route('GET', '/guilds/:guild/roles', 'getGuildRoles', {}, ({ params }) => ok([...requireGuild(params.guild).roles.values()])),
    ...commandRoutes('/applications/:app/commands', () => 'global', 'Global'),
    ...commandRoutes('/applications/:app/guilds/:guild/commands', (p) => p.guild, 'Guild'),
  ];
}
