/**
 * The `discord` config section's own keys: slash commands registered per guild when `guild_ids` lists some
 * (ids must be quoted, as YAML cannot read 19-digit numbers exactly), the Message Content intent only when
 * `message_content` says so, the shard count, and the adapter's section built from them.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discordConfigOf } from '../../../src/adapters/discord/config';
import { loadGatewayConfig } from '../../../src/gateway/config';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'pg-config-dc-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function load(yaml: string) {
  mkdirSync(join(cwd, 'config'), { recursive: true });
  writeFileSync(join(cwd, 'config', 'gateway.yaml'), yaml);
  return loadGatewayConfig({ argv: [], env: { HOME: '/home/op', DISCORD_BOT_TOKEN: 'MTIz.abc.def' }, cwd });
}

it('reads guild ids and the intent switch, and hands them to the adapter', () => {
  const r = load('discord:\n  guild_ids: ["1123456789012345678", "1123456789012345679"]\n  message_content: true\n');
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  expect(r.config.discord).toMatchObject({ configured: true, guild_ids: ['1123456789012345678', '1123456789012345679'], message_content: true });
  expect(discordConfigOf(r.config.discord)).toMatchObject({ botToken: 'MTIz.abc.def', apiUrl: 'https://discord.com/api', guildIds: ['1123456789012345678', '1123456789012345679'], messageContent: true });
});

it('defaults to global commands without the privileged intent', () => {
  const r = load('discord: {}\n');
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  expect(r.config.discord).toMatchObject({ guild_ids: [], message_content: false });
});

it('refuses an unquoted 19-digit guild id and a non-boolean switch, naming the key', () => {
  const r = load('discord:\n  guild_ids: [1123456789012345678]\n  message_content: sometimes\n');
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.errors.map((e) => e.path)).toEqual(['discord.guild_ids[0]', 'discord.message_content']);
  expect(r.errors[0].message).toMatch(/quote numbers longer than 15 digits/);
});

it('splits the bot over discord.shard_count shards (default 1) and refuses a count that is not a whole number of at least 1', () => {
  const one = load('discord: {}\n');
  if (!one.ok) throw new Error(JSON.stringify(one.errors));
  expect(one.config.discord.shard_count).toBe(1);
  const four = load('discord:\n  shard_count: 4\n');
  if (!four.ok) throw new Error(JSON.stringify(four.errors));
  expect(discordConfigOf(four.config.discord)).toMatchObject({ shardCount: 4 });
  for (const bad of ['0', '1.5', 'two']) {
    const r = load(`discord:\n  shard_count: ${bad}\n`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual(['discord.shard_count']);
    expect(r.errors[0].message).toMatch(/shard/);
  }
});
