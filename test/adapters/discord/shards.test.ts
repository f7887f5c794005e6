/**
 * Several instances on one bot (real discord.js against the fake Discord, an in-memory Leadership): each
 * adapter connects only the shards it leads, at most its share, and sends over REST either way; the holder
 * of shard 0 registers the commands; a lost leadership disconnects the shard and a standby IDENTIFYs for it;
 * shares rebalance when an instance joins; health says what each instance holds, or why a shard failed.
 */
import type { DiscordThreadRef } from '../../../src/adapters/contract/thread-ref';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { DiscordAdapter, DiscordAdapterDeps } from '../../../src/adapters/discord/adapter';
import { DISCORD_COMMANDS } from '../../../src/adapters/discord/commands';
import { MemoryLocks } from '../../fakes/memory-leadership';
import { RecordingHandler, startDiscordHarness, type DiscordHarness } from './harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const content = (text: string): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0 });
const general = (): DiscordThreadRef => ({ platform: 'discord', guild: h.server.defaultGuild.id, channel: h.server.channelId('general'), thread: null });
const shardName = (i: number) => `discord-shard:${h.server.applicationId}:${i}`;
const ready = () => h.server.identifies.filter((i) => i.outcome === 'ready');
const shardOfGuild = (guild: string, count: number) => Number((BigInt(guild) >> 22n) % BigInt(count));

/** The adapters change state without a call to the fake: look every few milliseconds. */
async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
}

interface Instance {
  adapter: DiscordAdapter;
  handler: RecordingHandler;
}

async function instance(locks: MemoryLocks, id: string, shardCount: number, deps: DiscordAdapterDeps = {}): Promise<Instance> {
  const adapter = h.adapter({ shardCount }, { leadership: locks.for(id), shardCheckMs: 20, ...deps });
  const handler = new RecordingHandler();
  await adapter.start(handler);
  return { adapter, handler };
}

describe('Discord shards split across instances', () => {
  it('an instance that leads the only shard IDENTIFYs once with it and registers the commands', async () => {
    h = await startDiscordHarness();
    const locks = new MemoryLocks();
    const a = await instance(locks, 'a', 1);
    await until('the shard to connect', () => a.adapter.health().detail === 'holds shard 0 of 1');
    expect(ready().map((i) => i.shard)).toEqual([[0, 1]]);
    expect(locks.held('a')).toEqual([shardName(0)]);
    await until('the commands', () => h.server.registeredCommands().length === DISCORD_COMMANDS.length);
    h.server.dm('alice', 'hello');
    await a.handler.waitFor(() => a.handler.messages.length === 1, 'the DM');
  });

  it('only the leader connects, both send over REST, and the standby IDENTIFYs once the leader loses the lock', async () => {
    h = await startDiscordHarness({ rateLimits: false });
    const locks = new MemoryLocks();
    const a = await instance(locks, 'a', 1, { liveInstances: () => 2 });
    await until('a to connect', () => a.adapter.health().detail === 'holds shard 0 of 1');
    const b = await instance(locks, 'b', 1, { liveInstances: () => 2 });
    expect(b.adapter.health()).toMatchObject({ state: 'connected', detail: expect.stringMatching(/^sending only: this instance holds none of the bot's 1 shard/) });
    expect(ready()).toHaveLength(1);

    await a.adapter.post(general(), content('from a'));
    await b.adapter.post(general(), content('from b'));
    expect(h.server.botMessages('general').map((m) => m.content)).toEqual(['from a', 'from b']);

    h.server.dm('alice', 'to the leader');
    await a.handler.waitFor(() => a.handler.messages.length === 1, 'the DM at a');
    expect(b.handler.messages).toHaveLength(0);

    locks.drop(shardName(0));
    await until('b to connect', () => b.adapter.health().detail === 'holds shard 0 of 1');
    expect(ready()).toHaveLength(2);
    await until("a's connection to close", () => h.server.gateway.connections.find((c) => c.id === ready()[0].connectionId)?.closed === true);
    expect(locks.holder(shardName(0))).toBe('b');
    await until('a to say it holds none', () => /^sending only/.test(a.adapter.health().detail ?? ''));
    h.server.dm('alice', 'to the standby');
    await b.handler.waitFor(() => b.handler.messages.length === 1, 'the DM at b');
    expect(a.handler.messages.map((m) => m.text)).toEqual(['to the leader']);
  });

  it('with two shards, two instances each lead one; each IDENTIFYs with its shard and gets its guilds', async () => {
    h = await startDiscordHarness();
    const locks = new MemoryLocks();
    const a = await instance(locks, 'a', 2, { liveInstances: () => 2, shardOffset: 0 });
    const b = await instance(locks, 'b', 2, { liveInstances: () => 2, shardOffset: 0 });
    await until('both to connect', () => ready().length === 2 && [a, b].every((x) => /^holds shard \d of 2$/.test(x.adapter.health().detail ?? '')));
    expect(ready().map((i) => i.shard).sort()).toEqual([[0, 2], [1, 2]]);
    expect(locks.held('a')).toHaveLength(1);
    expect(locks.held('b')).toHaveLength(1);
    expect(new Set([...locks.held('a'), ...locks.held('b')])).toEqual(new Set([shardName(0), shardName(1)]));

    const guild = h.server.defaultGuild.id;
    const leads = (x: string, i: number) => locks.holder(shardName(i)) === x;
    const owner = leads('a', shardOfGuild(guild, 2)) ? a : b;
    const other = owner === a ? b : a;
    h.server.mention('general', 'alice', 'hello');
    await owner.handler.waitFor(() => owner.handler.messages.length === 1, 'the mention at the shard holder');
    expect(other.handler.messages).toHaveLength(0);
  });

  it('an instance alone takes every shard and gives one back when a second instance joins', async () => {
    h = await startDiscordHarness();
    const locks = new MemoryLocks();
    let live = 1;
    const a = await instance(locks, 'a', 2, { liveInstances: () => live });
    await until('a to hold both shards', () => a.adapter.health().detail === 'holds shards 0, 1 of 2');
    live = 2;
    const b = await instance(locks, 'b', 2, { liveInstances: () => live });
    await until('one shard each', () => locks.held('a').length === 1 && locks.held('b').length === 1 && /^holds shard \d of 2$/.test(b.adapter.health().detail ?? ''));
    expect(a.adapter.health().detail).toMatch(/^holds shard \d of 2$/);
    expect(ready()).toHaveLength(3);
  });

  it('alone (no leadership), one client IDENTIFYs every configured shard', async () => {
    h = await startDiscordHarness();
    const a = h.adapter({ shardCount: 2 });
    await a.start(new RecordingHandler());
    await until('both shards', () => ready().length === 2);
    expect(ready().map((i) => i.shard).sort()).toEqual([[0, 2], [1, 2]]);
    expect(a.health().state).toBe('connected');
  });

  it('reports a shard it led but could not connect as failed, with the reason, and lets its lock go', async () => {
    h = await startDiscordHarness();
    const locks = new MemoryLocks();
    const refused = h.adapter({ messageContent: true }, { leadership: locks.for('a'), shardCheckMs: 20, shardRetryMs: 60_000 });
    await refused.start(new RecordingHandler());
    await until('the refusal', () => refused.health().state === 'failed');
    expect(refused.health().detail).toMatch(/^shard 0: Discord refused the privileged Message Content intent \(gateway close 4014\)/);
    await until('the lock to be free', () => locks.holder(shardName(0)) === undefined);
    expect(h.server.identifies.filter((i) => i.outcome === 4014)).toHaveLength(1);
  });

  it('fails start on a rejected token before leading anything', async () => {
    h = await startDiscordHarness();
    const locks = new MemoryLocks();
    const a = h.adapter({ botToken: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.bad.token' }, { leadership: locks.for('a') });
    await expect(a.start(new RecordingHandler())).rejects.toThrow(/Discord rejected the bot token/);
    expect(locks.held('a')).toEqual([]);
    expect(h.server.gateway.connections).toHaveLength(0);
  });
});
