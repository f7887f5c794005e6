/**
 * doctor's Discord check against the fake Discord platform: a good token and complete permissions pass;
 * `discord.message_content` without the application's Message Content intent fails naming the intent; a
 * configured guild where the bot's roles lack permissions the adapter uses fails naming them, with an
 * invite link that grants exactly the right set; a guild the bot is not in, roles or an application that
 * cannot be read fail naming what could not be read. The token may come as DISCORD_TOKEN; set under both
 * names to different tokens it stops doctor and start. The token never appears in the output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inviteUrl } from '../../../src/adapters/discord/invite';
import { FakeDiscordServer, type FakeDiscordOptions } from '../../fakes/discord-server';
import { FakeOpenAIServer } from '../../fakes/openai-server';
import { cliEnv, type CliEnv } from './helpers';

let dc: FakeDiscordServer;
let model: FakeOpenAIServer;
let c: CliEnv;
afterEach(async () => {
  c?.cleanup();
  await dc?.stop();
  await model?.stop();
});

async function setUp(options: FakeDiscordOptions, yaml: (guild: string) => string): Promise<{ root: string; guild: string }> {
  dc = new FakeDiscordServer(options);
  const { apiRoot, token } = await dc.start();
  // A working model endpoint, so the exit code speaks only of the Discord check.
  model = new FakeOpenAIServer({ apiKey: 'sk-discord-doctor', models: ['gpt-test'] });
  const { baseUrl } = await model.start();
  c = cliEnv({ DISCORD_BOT_TOKEN: token, DISCORD_API_URL: apiRoot, OPENAI_API_KEY: 'sk-discord-doctor', OPENAI_BASE_URL: baseUrl, PENGUIN_MODEL: 'gpt-test' });
  mkdirSync(join(c.dir, 'config'));
  writeFileSync(join(c.dir, 'config', 'gateway.yaml'), yaml(dc.defaultGuild.id));
  return { root: apiRoot, guild: dc.defaultGuild.id };
}

const discordLine = (out: string) => out.split('\n').find((l) => /^. discord /.test(l))!;

it('passes with a good token, the intent it asks for and every permission in the configured guild', async () => {
  const { root, guild } = await setUp({ privilegedIntents: { messageContent: true } }, (g) => `discord:\n  guild_ids: ["${g}"]\n  message_content: true\n`);
  const r = await c.run(['doctor']);
  expect(discordLine(r.stdout)).toBe(`✓ discord      bot penguin-bot (id ${dc.applicationId}) via ${root}; permissions complete in 1 guild`);
  expect(r.code).toBe(0);
  expect(dc.callsTo('getGuildMember')[0].path).toBe(`/guilds/${guild}/members/${dc.applicationId}`);
  expect(r.stdout).not.toContain(dc.token);
});

it('names the Message Content intent when the config asks for it and the application lacks it', async () => {
  await setUp({}, () => 'discord:\n  message_content: true\n');
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(discordLine(r.stdout)).toMatch(/^✗ discord {6}bot penguin-bot .*: discord\.message_content is on, but the application lacks the Message Content intent \(the gateway would close with 4014\)$/);
  expect(r.stdout).toContain('→ enable Message Content Intent in the Developer Portal (Bot → Privileged Gateway Intents), or set discord.message_content: false');
});

it("names the permissions the bot's roles lack in a configured guild, and links an invite that grants them", async () => {
  const { guild } = await setUp({ guilds: [{ name: 'Strict', channels: ['general'], members: ['alice'], everyonePermissions: ['ViewChannel', 'SendMessages', 'ReadMessageHistory'], botPermissions: ['SendMessagesInThreads'] }] }, (g) => `discord:\n  guild_ids: ["${g}"]\n`);
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(discordLine(r.stdout)).toContain(`guild ${guild}: the bot lacks Create Public Threads, Add Reactions`);
  expect(r.stdout).toContain(`→ grant those permissions to the bot's role, or invite it again with ${inviteUrl(dc.applicationId)}`);
});

it('fails naming a configured guild the bot is not a member of', async () => {
  await setUp({}, () => 'discord:\n  guild_ids: ["111111111111111111"]\n');
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(discordLine(r.stdout)).toMatch(/: guild 111111111111111111: the bot is not a member \(HTTP 404\)$/);
  expect(r.stdout).toContain(`→ grant those permissions to the bot's role, or invite it again with ${inviteUrl(dc.applicationId)}`);
});

it("fails when a guild's roles or the application cannot be read", async () => {
  const { guild } = await setUp({ privilegedIntents: { messageContent: true } }, (g) => `discord:\n  guild_ids: ["${g}"]\n  message_content: true\n`);
  dc.failNext({ route: 'getGuildRoles', with: { httpStatus: 502 } });
  let r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(discordLine(r.stdout)).toMatch(new RegExp(`: guild ${guild}: could not read its roles$`));

  dc.failNext({ route: 'getCurrentApplication', with: { httpStatus: 502 } });
  r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(discordLine(r.stdout)).toMatch(/: could not read the application \(HTTP 502\)$/);
  expect(r.stdout).toContain('→ check DISCORD_API_URL and try again');
  expect(r.stdout).not.toContain(dc.token);
});

it('takes the token as DISCORD_TOKEN too; two different tokens stop doctor and start with an error naming both variables', async () => {
  const { root } = await setUp({}, () => 'discord:\n  message_content: false\n');
  delete c.env.DISCORD_BOT_TOKEN;
  c.env.DISCORD_TOKEN = dc.token;
  const alias = await c.run(['doctor']);
  expect(discordLine(alias.stdout)).toBe(`✓ discord      bot penguin-bot (id ${dc.applicationId}) via ${root}`);
  expect(alias.code).toBe(0);

  c.env.DISCORD_BOT_TOKEN = `${dc.token}-other`;
  const message = 'environment: DISCORD_TOKEN: expected the same value as DISCORD_BOT_TOKEN (both name the Discord bot token; set only one), found a different token than DISCORD_BOT_TOKEN';
  let started = false;
  for (const argv of [['doctor'], ['start']]) {
    const r = await c.run(argv, {
      loadStart: () => async () => {
        started = true;
        return { done: Promise.resolve(0) };
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr + r.stdout).not.toContain(dc.token);
  }
  expect(started).toBe(false);
});
