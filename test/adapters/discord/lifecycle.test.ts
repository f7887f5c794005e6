/**
 * The adapter's life against the fake Discord platform (real discord.js, no gateway process): it identifies
 * with only the intents it needs, registers the slash commands once per scope (a restart writes nothing),
 * per guild when configured; a refused privileged intent and a bad token fail start with what to fix; the
 * connection resumes after a close and reports `health()` all along; stop() is final and idempotent.
 */
import { GatewayIntentBits } from 'discord.js';
import { DISCORD_COMMANDS } from '../../../src/adapters/discord/commands';
import { RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const NAMES = DISCORD_COMMANDS.map((c) => c.name).sort();
const BASE_INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages;

/** The adapter's own state changes without a call to the fake: look at it every few milliseconds. */
async function healthBecomes(adapter: { health(): { state: string } }, state: string): Promise<void> {
  for (let i = 0; i < 600 && adapter.health().state !== state; i++) await new Promise((r) => setTimeout(r, 5));
  expect(adapter.health().state).toBe(state);
}

describe('Discord adapter lifecycle', () => {
  it('identifies with the three intents it needs, registers the commands globally once, and reports health', async () => {
    h = await startDiscordHarness();
    const first = h.adapter();
    await first.start(new RecordingHandler());
    expect(h.server.identifies[0].intents).toBe(BASE_INTENTS);
    expect(h.server.registeredCommands().map((c) => c.name).sort()).toEqual(NAMES);
    expect(h.server.registeredCommands().every((c) => c.contexts?.includes(1))).toBe(true);
    expect(h.server.commandCreates('global')).toBe(NAMES.length);
    expect(first.health()).toMatchObject({ state: 'connected' });
    await first.stop();

    const second = h.adapter();
    await second.start(new RecordingHandler());
    expect(h.server.callsTo('listGlobalCommands')).toHaveLength(2);
    expect(h.server.callsTo('bulkOverwriteGlobalCommands')).toHaveLength(1);
    expect(h.server.commandCreates('global')).toBe(NAMES.length);
  });

  it('registers per guild when guild ids are configured, and rewrites a scope whose commands changed', async () => {
    h = await startDiscordHarness();
    const g = h.server.defaultGuild.id;
    const other = h.server.addGuild({ name: 'Other', channels: ['lobby'] }).id;
    const a = h.adapter({ guildIds: [g, other] });
    await a.start(new RecordingHandler());
    expect(h.server.registeredCommands(g).map((c) => c.name).sort()).toEqual(NAMES);
    expect(h.server.registeredCommands(other).map((c) => c.name).sort()).toEqual(NAMES);
    expect(h.server.registeredCommands()).toEqual([]);
    await a.stop();

    // someone removed a command by hand in one guild: only that guild is written again
    const stale = h.server.registeredCommands(other).filter((c) => c.name !== 'status');
    await fetch(`${h.apiRoot}/v10/applications/${h.server.applicationId}/guilds/${other}/commands`, {
      method: 'PUT', headers: { authorization: `Bot ${h.token}`, 'content-type': 'application/json' }, body: JSON.stringify(stale),
    });
    const b = h.adapter({ guildIds: [g, other] });
    await b.start(new RecordingHandler());
    const writes = h.server.callsTo('bulkOverwriteGuildCommands').map((c) => c.path);
    expect(writes.filter((p) => p.includes(`/guilds/${g}/`))).toHaveLength(1);
    expect(writes.filter((p) => p.includes(`/guilds/${other}/`))).toHaveLength(3);
    expect(h.server.registeredCommands(other).map((c) => c.name).sort()).toEqual(NAMES);
  });

  it('asks for Message Content only when configured, and fails start naming the intent when the app lacks it', async () => {
    h = await startDiscordHarness();
    const refused = h.adapter({ messageContent: true });
    await expect(refused.start(new RecordingHandler())).rejects.toThrow(/Message Content intent \(gateway close 4014\).*Developer Portal/);
    expect(h.server.identifies[0].outcome).toBe(4014);
    await h.cleanup();

    h = await startDiscordHarness({ privilegedIntents: { messageContent: true } });
    const allowed = h.adapter({ messageContent: true });
    await allowed.start(new RecordingHandler());
    expect(h.server.identifies[0].intents).toBe(BASE_INTENTS | GatewayIntentBits.MessageContent);
  });

  it('fails start on a rejected token, before touching the gateway', async () => {
    h = await startDiscordHarness();
    const a = h.adapter({ botToken: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.bad.token' });
    await expect(a.start(new RecordingHandler())).rejects.toThrow(/Discord rejected the bot token: check DISCORD_BOT_TOKEN/);
    expect(h.server.gateway.connections).toHaveLength(0);
  });

  it('can start again after a failed start, and then delivers each event once', async () => {
    h = await startDiscordHarness();
    const a = h.adapter();
    const handler = new RecordingHandler();
    h.server.failNext({ route: 'getGatewayBot', with: { httpStatus: 502 } });
    await expect(a.start(handler)).rejects.toThrow(/Discord login failed/);
    expect(a.health()).toMatchObject({ state: 'failed', detail: expect.stringMatching(/Discord login failed/) });
    await a.start(handler);
    expect(a.health().state).toBe('connected');
    h.server.dm('alice', 'once');
    h.server.dm('alice', 'twice?');
    await handler.waitFor(() => handler.messages.length >= 2, 'two DMs');
    expect(handler.messages.map((m) => m.text)).toEqual(['once', 'twice?']);
  });

  it('resumes after the connection closes, reporting reconnecting meanwhile, and keeps delivering', async () => {
    h = await startDiscordHarness();
    const a = h.adapter();
    const handler = new RecordingHandler();
    await a.start(handler);
    h.server.closeGateway(4000, 'unknown error');
    await healthBecomes(a, 'reconnecting');
    expect(a.health().detail).toMatch(/resuming/);
    await h.server.waitForResume(1, 5000);
    h.server.dm('alice', 'after the resume');
    await handler.waitFor(() => handler.messages.length === 1, 'the DM after the resume');
    expect(a.health()).toMatchObject({ state: 'connected', lastEventAt: expect.any(Number) });
    expect(h.server.identifies).toHaveLength(1);
  });

  it('resumes a connection whose heartbeats go unanswered', async () => {
    h = await startDiscordHarness({ gateway: { heartbeatIntervalMs: 100 } });
    const a = h.adapter();
    const handler = new RecordingHandler();
    await a.start(handler);
    h.server.stopHeartbeatAcks();
    await h.server.waitForResume(1, 5000);
    h.server.dm('bob', 'still there?');
    await handler.waitFor(() => handler.messages.length === 1, 'the DM on the new connection');
    expect(a.health().state).toBe('connected');
  });

  it('reports failed, with the reason, when Discord closes the connection for good', async () => {
    h = await startDiscordHarness();
    const a = h.adapter();
    await a.start(new RecordingHandler());
    h.server.closeGateway(4004, 'Authentication failed.');
    await healthBecomes(a, 'failed');
    expect(a.health().detail).toMatch(/rejected the bot token \(gateway close 4004\)/);
  });

  it('stops for good: no event is delivered afterwards, and stop is idempotent', async () => {
    h = await startDiscordHarness();
    const a = h.adapter();
    const handler = new RecordingHandler();
    await a.start(handler);
    h.server.dm('alice', 'one');
    await handler.waitFor(() => handler.messages.length === 1, 'first DM');
    await a.stop();
    await a.stop();
    expect(h.server.gateway.connections.every((c) => c.closed)).toBe(true);
    expect(h.server.dm('alice', 'too late').delivered).toBe(0);
    expect(handler.messages).toHaveLength(1);
    expect(a.health().state).toBe('failed');
    await expect(a.start(handler)).rejects.toThrow(/stopped/);
  });
});
