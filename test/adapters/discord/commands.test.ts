/**
 * Slash-command definitions and their comparison, without a network: what Discord lists back (its defaults
 * filled in, fields in any order) compares equal to what the adapter registers, a changed description or
 * option does not; invocations map to the text the gateway parses.
 */
import { commandsFor, commandText, sameCommands } from '../../../src/adapters/discord/commands';
import type { RegisteredCommand } from '../../../src/adapters/discord/payloads';

/** Roughly what Discord answers for a registered command: ids, versions and defaults added. */
const asListed = (c: Record<string, unknown>, scope: 'global' | 'guild'): RegisteredCommand =>
  ({
    id: '1', application_id: '2', version: '3', default_member_permissions: null, nsfw: false, name_localizations: null, description_localizations: null,
    ...(scope === 'global' ? { integration_types: [0], dm_permission: true } : { guild_id: '4' }),
    ...c,
    ...(Array.isArray(c.options) ? { options: (c.options as Array<Record<string, unknown>>).map((o) => ({ name_localizations: null, ...o })) } : {}),
  }) as unknown as RegisteredCommand;

describe('slash commands', () => {
  it('compare equal to what Discord lists back, in either scope, and differ when one changed', () => {
    for (const scope of ['global', 'guild'] as const) {
      const wanted = commandsFor(scope);
      const listed = [...wanted].reverse().map((c) => asListed(c, scope));
      expect(sameCommands(listed, wanted, scope)).toBe(true);
      expect(sameCommands(listed.slice(1), wanted, scope)).toBe(false);
      const edited = listed.map((c) => (c.name === 'stop' ? { ...c, description: 'Halt' } : c));
      expect(sameCommands(edited, wanted, scope)).toBe(false);
    }
    const global = commandsFor('global').map((c) => asListed(c, 'global'));
    const noPrompt = global.map((c) => (c.name === 'ask' ? { ...c, options: [] } : c));
    expect(sameCommands(noPrompt, commandsFor('global'), 'global')).toBe(false);
    expect(sameCommands(global.map((c) => ({ ...c, contexts: null })), commandsFor('global'), 'global')).toBe(false);
  });

  it('map an invocation to the message or chat command the gateway reads', () => {
    expect(commandText('ask', [{ name: 'prompt', value: '  What now?  ' }])).toBe('What now?');
    expect(commandText('mode', [{ name: 'mode', value: 'always-ask' }])).toBe('/mode always-ask');
    expect(commandText('mode', [])).toBe('/mode');
    expect(commandText('new', [])).toBe('/new');
    expect(commandText('stop', [])).toBe('/stop');
    expect(commandText('status', [])).toBe('/status');
    expect(commandText('dance', [])).toBeUndefined();
  });
});
