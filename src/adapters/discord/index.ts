/**
 * The Discord adapter (@discordjs/ws and @discordjs/rest): `createDiscordBinding(section)` builds the adapter
 * from the gateway's `discord` config section (it needs no HTTP routes: events arrive over the gateway
 * websocket); the pure pieces (payload mapping, error classification, components, thread refs, rate scopes,
 * commands, invite permissions) are exported for tests and other callers.
 */
import type { AdapterBinding, BindingDeps } from '../contract/binding';
import { DiscordAdapter } from './adapter';
import { discordConfigOf, type DiscordSection } from './config';

export function createDiscordBinding(section: DiscordSection, deps: BindingDeps = {}): AdapterBinding {
  return { adapter: new DiscordAdapter(discordConfigOf(section), deps) };
}

export { DiscordAdapter, type DiscordAdapterDeps } from './adapter';
export { parseDiscordConfig, discordAdapterConfigSchema, discordConfigOf, botIdOfToken, type DiscordAdapterConfig, type DiscordSection } from './config';
export { classifyDiscordError, classifyApiError, DiscordCode } from './errors';
export { messageToInbound, cleanText, threadName, type MappedMessage } from './inbound';
export { actionRows } from './components';
export { discordThread, discordPlace, channelOf, channelOfMessage } from './thread';
export { RateBook, governorLimit, routeOf, DISCORD_GLOBAL } from './rate';
export { DISCORD_COMMANDS, commandsFor, sameCommands, commandText, syncCommands } from './commands';
export { measureDiscord, discordContent } from './format';
export { REQUIRED_PERMISSIONS, REQUIRED_PERMISSION_BITS, inviteUrl, missingPermissions } from './invite';
export { intentsFor } from './client';
export { closeCodeDetail } from './health';
