/**
 * The slash commands (`/ask prompt:`, `/new`, `/stop`, `/mode`, `/status`) and their idempotent
 * registration: per guild when guild ids are configured (instant, for development), globally otherwise.
 * What is registered is listed first and compared field by field (Discord's defaults filled in on both
 * sides); only a scope whose commands differ is written, with one bulk overwrite, so restarts spend no
 * daily create budget and hit no 429. `commandText` turns an invocation into the text the gateway parses.
 */
import type { Logger } from 'pino';
import { APPROVAL_MODES } from '../../core/state/approval';
import { classifyDiscordError } from './errors';
import type { RegisteredCommand } from './payloads';
import type { DiscordRest, Json } from './rest';

const STRING = 3;
/** Interaction contexts: a guild, and the bot's DM. */
const CONTEXTS = [0, 1];

export const DISCORD_COMMANDS: Json[] = [
  {
    name: 'ask',
    description: 'Ask the agent; the answer opens a thread for follow-ups',
    options: [{ type: STRING, name: 'prompt', description: 'What you want', required: true, max_length: 4000 }],
  },
  { name: 'new', description: 'Start a fresh session in this thread or DM' },
  { name: 'stop', description: 'Stop the running task here' },
  {
    name: 'mode',
    description: 'How tool calls are approved here',
    options: [{ type: STRING, name: 'mode', description: 'Leave out to see the current mode', required: false, choices: APPROVAL_MODES.map((m) => ({ name: m, value: m })) }],
  },
  { name: 'status', description: "This conversation's session, mode and state" },
];

/** The commands as one scope registers them: global ones also work in the bot's DMs. */
export function commandsFor(scope: 'global' | 'guild'): Json[] {
  return DISCORD_COMMANDS.map((c) => ({ type: 1, ...c, ...(scope === 'global' ? { contexts: CONTEXTS, integration_types: [0] } : {}) }));
}

function normalOption(o: Record<string, unknown>): Json {
  const out: Json = { type: o.type, name: o.name, description: o.description ?? '', required: o.required === true };
  if (Array.isArray(o.choices) && o.choices.length) out.choices = o.choices.map((c: { name?: unknown; value?: unknown }) => ({ name: c.name, value: c.value }));
  if (o.max_length !== undefined && o.max_length !== null) out.max_length = o.max_length;
  if (Array.isArray(o.options) && o.options.length) out.options = o.options.map((x) => normalOption(x as Record<string, unknown>));
  return out;
}

/** A command with Discord's defaults filled in, so a registered one compares equal to what we send. */
export function normalCommand(c: Json | RegisteredCommand, scope: 'global' | 'guild'): Json {
  const options = Array.isArray(c.options) ? c.options.map((o) => normalOption(o as Record<string, unknown>)) : [];
  return {
    type: typeof c.type === 'number' ? c.type : 1,
    name: c.name,
    description: c.description ?? '',
    options,
    default_member_permissions: c.default_member_permissions ?? null,
    nsfw: c.nsfw === true,
    ...(scope === 'global' ? { contexts: c.contexts ?? null, integration_types: c.integration_types ?? [0] } : {}),
  };
}

/**
 * Any fixed order serves to compare two sets: code-unit order, not `localeCompare`, whose first call loads
 * ICU's collator and its locale data (~2 MB of the process's RSS at every start with Discord).
 */
const byName = (a: Json, b: Json): number => {
  const x = String(a.name);
  const y = String(b.name);
  return x < y ? -1 : x > y ? 1 : 0;
};

export function sameCommands(registered: RegisteredCommand[], wanted: Json[], scope: 'global' | 'guild'): boolean {
  const a = registered.map((c) => normalCommand(c, scope)).sort(byName);
  const b = wanted.map((c) => normalCommand(c, scope)).sort(byName);
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface SyncResult {
  /** Scopes written ('global' or a guild id); unchanged ones are absent. */
  written: string[];
  /** Scopes that could not be synced, with why. */
  failed: Array<{ scope: string; error: string }>;
}

/** Registers the commands where they differ; a failure is reported, never thrown (typed commands still work). */
export async function syncCommands(rest: DiscordRest, app: string, guildIds: readonly string[], logger: Logger): Promise<SyncResult> {
  const result: SyncResult = { written: [], failed: [] };
  const scopes: Array<string | undefined> = guildIds.length ? [...guildIds] : [undefined];
  for (const guild of scopes) {
    const kind = guild ? 'guild' : 'global';
    const wanted = commandsFor(kind);
    const name = guild ?? 'global';
    try {
      const registered = await rest.listCommands(app, guild);
      if (sameCommands(registered, wanted, kind)) continue;
      await rest.putCommands(app, wanted, guild);
      result.written.push(name);
      logger.info({ scope: name, commands: wanted.map((c) => c.name) }, 'discord: slash commands registered');
    } catch (err) {
      const e = classifyDiscordError(err);
      result.failed.push({ scope: name, error: e.message });
      logger.error({ scope: name, err: e.message }, 'discord: registering slash commands failed; they may be missing or stale');
    }
  }
  return result;
}

/** What the gateway reads from a slash command: `/ask`'s prompt as a message, the rest as chat commands. */
export function commandText(name: string, options: ReadonlyArray<{ name: string; value?: unknown }>): string | undefined {
  const opt = (n: string) => {
    const v = options.find((o) => o.name === n)?.value;
    return typeof v === 'string' ? v.trim() : '';
  };
  switch (name) {
    case 'ask': return opt('prompt');
    case 'mode': return opt('mode') ? `/mode ${opt('mode')}` : '/mode';
    case 'new':
    case 'stop':
    case 'status':
      return `/${name}`;
    default:
      return undefined;
  }
}
