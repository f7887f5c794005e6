/**
 * Interactions on the fake Discord platform through the real discord.js client: slash commands
 * registered per guild and globally (a second identical registration creates nothing), deferReply +
 * editReply, ephemeral replies and follow-ups, button clicks answered with deferUpdate or update,
 * `withResponse`, a reply after the 3 s window (10062) and a second acknowledgement (40060).
 */
import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, DiscordAPIError, Events, MessageFlags, Routes, type Client, type Interaction,
  type TextChannel,
} from 'discord.js';
import { ManualClock } from '../fakes/discord-clock';
import { rejection, startHarness, type DiscordHarness } from './discord-harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

const ASK = { name: 'ask', description: 'Ask the agent', options: [{ type: 3, name: 'prompt', description: 'What to ask', required: true }] };
const STOP = { name: 'stop', description: 'Stop the running task' };

function onInteraction(client: Client, handle: (i: Interaction) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    client.once(Events.InteractionCreate, (i) => void handle(i).then(resolve, reject));
  });
}

async function withCommands(h: DiscordHarness): Promise<Client> {
  const client = await h.login();
  await client.application!.commands.set([ASK, STOP], h.server.defaultGuild.id);
  return client;
}

describe('application commands', () => {
  it('registers per guild and globally, and a second identical set registers nothing', async () => {
    h = await startHarness();
    const client = await h.login();
    const g = h.server.defaultGuild.id;
    const first = await client.application!.commands.set([ASK, STOP], g);
    expect(first.map((c) => c.name).sort()).toEqual(['ask', 'stop']);
    expect(h.server.commandCreates(g)).toBe(2);
    const again = await client.application!.commands.set([ASK, STOP], g);
    expect(h.server.commandCreates(g)).toBe(2);
    expect([...again.keys()].sort()).toEqual([...first.keys()].sort());
    expect(h.server.registeredCommands(g).map((c) => c.name).sort()).toEqual(['ask', 'stop']);

    await client.application!.commands.set([STOP]);
    expect(h.server.registeredCommands().map((c) => c.name)).toEqual(['stop']);
    expect(h.server.commandCreates('global')).toBe(1);
    expect(h.server.callsTo('bulkOverwriteGuildCommands')).toHaveLength(2);
    expect(h.server.callsTo('bulkOverwriteGlobalCommands')[0].path).toBe(`/applications/${h.server.applicationId}/commands`);

    const bad = await rejection(client.application!.commands.create({ name: 'Bad Name', description: 'x' }, g));
    expect(bad.code).toBe(50035);
  });

  it('refuses commands a user cannot pick (unregistered, or guild-only in a DM)', async () => {
    h = await startHarness();
    await withCommands(h);
    expect(() => h.server.slashCommand('general', 'alice', 'nope')).toThrow(/not registered/);
    expect(() => h.server.dmSlashCommand('alice', 'ask', { prompt: 'x' })).toThrow(/not registered/);
    expect(() => h.server.slashCommand('general', 'alice', 'ask')).toThrow(/needs option "prompt"/);
  });
});

describe('slash commands', () => {
  it('defers, then edits the reply; the user sees "thinking" and then the answer', async () => {
    h = await startHarness();
    const client = await withCommands(h);
    let prompt: string | null = null;
    const handled = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      prompt = i.options.getString('prompt');
      expect(i.channelId).toBe(h.server.channelId('general'));
      expect(i.guildId).toBe(h.server.defaultGuild.id);
      expect(i.locale).toBe('en-US');
      expect(i.attachmentSizeLimit).toBe(10 * 1024 * 1024);
      expect(i.appPermissions.has('SendMessages')).toBe(true);
      await i.deferReply();
      expect(h.server.interaction(i.id).response).toMatchObject({ loading: true, content: '' });
      await i.editReply('the answer');
    });
    const cmd = h.server.slashCommand('general', 'alice', 'ask', { prompt: 'meaning of life' });
    await handled;
    expect(prompt).toBe('meaning of life');
    const response = await cmd.waitForResponse();
    expect(response).toMatchObject({ content: 'the answer', loading: false, ephemeral: false, type: 20, interactionId: cmd.id });
    expect(cmd.view()).toMatchObject({ acked: true, ackType: 5, state: 'acknowledged', commandName: 'ask' });
    expect(cmd.view().ackLatencyMs).toBeLessThan(3000);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: the answer']);
  });

  it('keeps ephemeral replies and follow-ups for the invoking user only', async () => {
    h = await startHarness();
    const client = await withCommands(h);
    const handled = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply({ flags: MessageFlags.Ephemeral });
      await i.editReply('only you');
      await i.followUp({ content: 'also only you', flags: MessageFlags.Ephemeral });
      await i.followUp({ content: 'for everyone' });
    });
    const cmd = h.server.slashCommand('general', 'alice', 'stop');
    await handled;
    expect(h.server.ephemeralReplies('alice').map((m) => m.content)).toEqual(['only you', 'also only you']);
    expect(h.server.transcript('general')).toEqual(['penguin-bot: for everyone']);
    expect(h.server.transcript('general', { as: 'alice' })).toEqual(['penguin-bot: only you', 'penguin-bot: also only you', 'penguin-bot: for everyone']);
    expect(cmd.view().followups.map((m) => m.ephemeral)).toEqual([true, false]);
  });

  it('returns the callback response object when asked withResponse', async () => {
    h = await startHarness();
    const client = await withCommands(h);
    let messageId: string | undefined;
    const handled = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) return;
      const res = await i.reply({ content: 'right away', withResponse: true });
      messageId = res.resource?.message?.id;
    });
    const cmd = h.server.slashCommand('general', 'bob', 'ask', { prompt: 'now' });
    await handled;
    expect(messageId).toBe(cmd.view().response?.id);
  });

  it('answers 10062 to a callback after the 3 s window and 40060 to a second acknowledgement', async () => {
    const clock = new ManualClock(Date.now());
    h = await startHarness({ clock, rateLimits: false });
    const client = await withCommands(h);
    const late = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) return;
      clock.advance(3001);
      const err = await rejection(i.deferReply());
      expect(err).toBeInstanceOf(DiscordAPIError);
      expect([err.status, err.code, err.message]).toEqual([404, 10062, 'Unknown interaction']);
    });
    const slow = h.server.slashCommand('general', 'alice', 'stop');
    await late;
    expect(slow.view()).toMatchObject({ acked: false, state: 'expired', callbacks: [{ type: 5, status: 404, code: 10062 }] });

    const twice = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      const err = await rejection(client.rest.post(Routes.interactionCallback(i.id, i.token), { body: { type: 5 }, auth: false }));
      expect([err.status, err.code, err.message]).toEqual([400, 40060, 'Interaction has already been acknowledged.']);
      await i.editReply('done once');
    });
    const dup = h.server.slashCommand('general', 'alice', 'stop');
    await twice;
    expect(dup.view().callbacks.map((c) => c.status)).toEqual([204, 400]);
  });
});

describe('interaction webhooks', () => {
  it('turns a follow-up right after a defer into the reply, and expires the token after 15 minutes', async () => {
    const clock = new ManualClock(Date.now());
    h = await startHarness({ clock, rateLimits: false });
    const client = await withCommands(h);
    const handled = onInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await i.followUp('fills the deferred reply');
      await i.followUp('a real follow-up');
      clock.advance(15 * 60_000 + 1);
      const err = await rejection(i.editReply('too late'));
      expect([err.status, err.code]).toEqual([401, 50027]);
    });
    const cmd = h.server.slashCommand('general', 'alice', 'stop');
    await handled;
    expect(cmd.view().response).toMatchObject({ content: 'fills the deferred reply', loading: false });
    expect(cmd.view().followups.map((m) => m.content)).toEqual(['a real follow-up']);
    expect(cmd.view().state).toBe('expired');
  });
});

describe('buttons', () => {
  async function card(h: DiscordHarness, client: Client) {
    const channel = (await client.channels.fetch(h.server.channelId('general'))) as TextChannel;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('allow:7').setLabel('Allow').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setCustomId('deny:7').setLabel('Deny').setStyle(ButtonStyle.Danger),
    );
    return channel.send({ content: 'Run `ls`?', components: [row] });
  }

  it('deferUpdate then editReply edits the card in place', async () => {
    h = await startHarness();
    const client = await h.login();
    const msg = await card(h, client);
    const handled = onInteraction(client, async (i) => {
      if (!i.isButton()) throw new Error('expected a button');
      expect(i.customId).toBe('allow:7');
      expect(i.message.id).toBe(msg.id);
      await i.deferUpdate();
      await i.editReply({ content: 'Allowed by alice', components: [] });
    });
    const click = h.server.clickButton(msg.id, 'allow:7', 'alice');
    await handled;
    const after = await click.waitForResponse();
    expect(after).toMatchObject({ id: msg.id, content: 'Allowed by alice', buttons: [] });
    expect(click.view()).toMatchObject({ ackType: 6, customId: 'allow:7' });
    expect(() => h.server.clickButton(msg.id, 'deny:7', 'bob')).toThrow(/no button/);
  });

  it('update() edits the card with the acknowledgement itself', async () => {
    h = await startHarness();
    const client = await h.login();
    const msg = await card(h, client);
    const handled = onInteraction(client, async (i) => {
      if (!i.isButton()) return;
      const disabled = new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId('allow:7').setLabel('Allow').setStyle(ButtonStyle.Success).setDisabled(true),
      );
      await i.update({ content: 'Denied by bob', components: [disabled] });
    });
    const click = h.server.clickButton(msg.id, 'deny:7', 'bob');
    await handled;
    expect(click.view().ackType).toBe(7);
    expect(h.server.messageView(msg.id)).toMatchObject({ content: 'Denied by bob', buttons: [[{ customId: 'allow:7', disabled: true }]] });
    expect(() => h.server.clickButton(msg.id, 'allow:7', 'bob')).toThrow(/disabled/);
  });
});
