/**
 * Messages on the fake Discord platform through the real discord.js client: inbound messages in a
 * guild channel, a thread and a DM (content withheld without MESSAGE_CONTENT unless the bot is
 * mentioned), sending with buttons and allowed_mentions, who would be pinged, edits, threads from a
 * message, typing, reactions, uploads and inbound attachments, and the REST errors Discord answers.
 */
import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, ChannelType, DiscordAPIError, Events, type Message, type TextChannel,
  type ThreadChannel,
} from 'discord.js';
import { rejection, startHarness, type DiscordHarness } from './discord-harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

function nextMessage(client: import('discord.js').Client, filter: (m: Message) => boolean = () => true): Promise<Message> {
  return new Promise((resolve) => {
    const on = (m: Message): void => {
      if (!filter(m)) return;
      client.off(Events.MessageCreate, on);
      resolve(m);
    };
    client.on(Events.MessageCreate, on);
  });
}

async function general(h: DiscordHarness, client: import('discord.js').Client): Promise<TextChannel> {
  return (await client.channels.fetch(h.server.channelId('general'))) as TextChannel;
}

describe('inbound messages', () => {
  it('delivers guild, thread and DM messages; content is withheld unless the bot is mentioned or it is a DM', async () => {
    h = await startHarness();
    const client = await h.login();
    const bot = h.server.applicationId;

    const plain = nextMessage(client);
    const p = h.server.message('general', 'alice', 'just chatting');
    expect(p.delivered).toBe(1);
    const m1 = await plain;
    expect(m1.content).toBe('');
    expect(m1.author.username).toBe('alice');
    expect(m1.guildId).toBe(h.server.defaultGuild.id);
    expect(m1.member?.id).toBe(m1.author.id);

    const mentioned = nextMessage(client);
    h.server.mention('general', 'alice', 'what is 2+2?');
    const m2 = await mentioned;
    expect(m2.content).toBe(`<@${bot}> what is 2+2?`);
    expect(m2.mentions.users.has(bot)).toBe(true);

    const threadId = h.server.startThread('general', 'bob', 'side topic', { fromMessage: p.id });
    expect(threadId).toBe(p.id);
    await h.server.waitFor(() => client.channels.cache.has(threadId) || undefined, 2000, 'thread cached');
    const inThread = nextMessage(client);
    h.server.mention(threadId, 'bob', 'in the thread');
    const m3 = await inThread;
    expect(m3.channel.isThread()).toBe(true);
    expect((m3.channel as ThreadChannel).parentId).toBe(h.server.channelId('general'));
    expect(m3.content).toMatch(/in the thread$/);

    const dm = nextMessage(client);
    h.server.dm('alice', 'hello in private');
    const m4 = await dm;
    expect(m4.channel.type).toBe(ChannelType.DM);
    expect(m4.guildId).toBeNull();
    expect(m4.content).toBe('hello in private');
  });

  it('shows replies to the bot when they ping it, and keeps edits and deletions of user messages', async () => {
    h = await startHarness();
    const client = await h.login();
    const channel = await general(h, client);
    const sent = await channel.send('I am the bot');
    const reply = nextMessage(client, (m) => m.author.id !== client.user!.id);
    const r = h.server.message('general', 'alice', 'replying to you', { replyTo: sent.id });
    expect((await reply).content).toBe('replying to you');
    expect(h.server.messageView(r.id).replyTo).toBe(sent.id);

    const updated = new Promise<string>((resolve) => client.once(Events.MessageUpdate, (_o, n) => resolve(n.id)));
    h.server.editUserMessage(r.id, 'changed my mind');
    expect(await updated).toBe(r.id);
    const deleted = new Promise<string>((resolve) => client.once(Events.MessageDelete, (m) => resolve(m.id)));
    h.server.deleteUserMessage(r.id);
    expect(await deleted).toBe(r.id);
    expect(h.server.messageView(r.id)).toMatchObject({ deleted: true, versions: ['replying to you', 'changed my mind'] });
  });

  it('serves inbound attachments from the fake CDN', async () => {
    h = await startHarness();
    const client = await h.login();
    const got = nextMessage(client);
    h.server.mention('general', 'alice', 'see file', { attachments: [{ filename: 'notes.txt', data: 'hello file', contentType: 'text/plain' }] });
    const att = (await got).attachments.first()!;
    expect(att.name).toBe('notes.txt');
    expect(att.url.startsWith(`${h.server.cdnRoot}/attachments/`)).toBe(true);
    const res = await fetch(att.url);
    expect(await res.text()).toBe('hello file');
  });
});

describe('sending', () => {
  it('sends buttons with allowedMentions parse [] so nobody is pinged, and edits in place', async () => {
    h = await startHarness();
    const client = await h.login();
    const channel = await general(h, client);
    const alice = h.server.user('alice');
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('approve:1').setLabel('Allow').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setCustomId('deny:1').setLabel('Deny').setStyle(ButtonStyle.Danger),
    );
    const msg = await channel.send({ content: `@everyone <@${alice.id}> look`, components: [row], allowedMentions: { parse: [] } });
    const view = h.server.messageView(msg.id);
    expect(view.buttons).toEqual([[
      { label: 'Allow', customId: 'approve:1', style: 3, disabled: false },
      { label: 'Deny', customId: 'deny:1', style: 4, disabled: false },
    ]]);
    expect(view.allowedMentions).toEqual({ parse: [] });
    expect(view.pinged.any).toBe(false);
    expect(h.server.pingingMessages()).toEqual([]);

    const loud = await channel.send(`@everyone <@${alice.id}> look`);
    expect(h.server.messageView(loud.id).pinged).toMatchObject({ any: true, everyone: true, users: [alice.id] });

    const edited = await msg.edit({ content: 'decided', components: [] });
    expect(edited.editedTimestamp).not.toBeNull();
    expect(h.server.messageView(msg.id)).toMatchObject({ content: 'decided', buttons: [], edited: true, versions: [`@everyone <@${alice.id}> look`, 'decided'] });
    expect(h.server.transcript('general')).toEqual(['penguin-bot: decided', `penguin-bot: @everyone <@${alice.id}> look`]);
  });

  it('replies ping the author unless repliedUser is off', async () => {
    h = await startHarness();
    const client = await h.login();
    const got = nextMessage(client);
    h.server.mention('general', 'alice', 'question');
    const q = await got;
    const a = await q.reply('answer');
    expect(h.server.messageView(a.id).pinged).toMatchObject({ any: true, repliedUser: q.author.id });
    const b = await q.reply({ content: 'quiet answer', allowedMentions: { repliedUser: false } });
    expect(h.server.messageView(b.id).pinged.any).toBe(false);
  });

  it('starts a thread from a message, types, reacts and uploads files', async () => {
    h = await startHarness();
    const client = await h.login();
    const channel = await general(h, client);
    const msg = await channel.send('thread starter');
    const created = new Promise<ThreadChannel>((resolve) => client.once(Events.ThreadCreate, (t) => resolve(t)));
    const thread = await msg.startThread({ name: 'Agent run' });
    expect(thread.id).toBe(msg.id);
    expect((await created).id).toBe(msg.id);
    expect(h.server.channelView('general').threads).toEqual([{ id: msg.id, name: 'Agent run', archived: false, starterMessageId: msg.id }]);

    await thread.sendTyping();
    expect(h.server.channelView(thread.id).botTyping).toBe(true);
    const inThread = await thread.send({ content: 'working…', files: [{ attachment: Buffer.from('log line'), name: 'run.log' }] });
    expect(h.server.channelView(thread.id).botTyping).toBe(false);
    const att = inThread.attachments.first()!;
    expect(att.name).toBe('run.log');
    expect(await (await fetch(att.url)).text()).toBe('log line');

    await inThread.react('👀');
    expect(h.server.messageView(inThread.id).reactions).toEqual([{ emoji: '👀', count: 1, me: true }]);
    expect(h.server.callsTo('triggerTyping')).toHaveLength(1);
  });

  it('DMs a user, and gets 50007 once they closed DMs', async () => {
    h = await startHarness();
    const client = await h.login();
    const alice = await client.users.fetch(h.server.user('alice').id);
    const dm = await alice.send('hi alice');
    expect(h.server.channelView(h.server.dmChannelId('alice')).messages.map((m) => m.content)).toEqual(['hi alice']);
    expect(dm.channel.type).toBe(ChannelType.DM);
    h.server.setDmsClosed('alice');
    const err = await rejection(alice.send('again'));
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect([err.status, err.code]).toEqual([403, 50007]);
  });
});

describe('threads and components v2', () => {
  it('reopens an archived thread on send, refuses a locked one, and checks thread names', async () => {
    h = await startHarness({ rateLimits: false });
    const client = await h.login();
    const channel = await general(h, client);
    const starter = await channel.send('starter');
    const long = await rejection(starter.startThread({ name: 'n'.repeat(101) }));
    expect(long.rawError.errors.name._errors[0]).toEqual({ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' });
    const thread = await starter.startThread({ name: 'work' });
    const again = await rejection(client.rest.post(`/channels/${channel.id}/messages/${starter.id}/threads`, { body: { name: 'twice' } }));
    expect(again.code).toBe(160004);

    h.server.archiveThread(thread.id);
    await thread.send('wake up');
    expect(h.server.channelView(thread.id).archived).toBe(false);
    h.server.archiveThread(thread.id, { locked: true });
    expect((await rejection(thread.send('locked'))).code).toBe(50083);
  });

  it('validates Components V2 messages', async () => {
    h = await startHarness({ rateLimits: false });
    const client = await h.login();
    const channel = await general(h, client);
    const v2 = { flags: 1 << 15, components: [{ type: 17, components: [{ type: 10, content: 'status: working' }] }] };
    const ok: any = await client.rest.post(`/channels/${channel.id}/messages`, { body: v2 });
    expect(h.server.messageView(ok.id).components[0].type).toBe(17);
    const mixed = await rejection(client.rest.post(`/channels/${channel.id}/messages`, { body: { ...v2, content: 'not allowed' } }));
    expect(mixed.rawError.errors.content._errors[0].code).toBe('MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2');
    const tooMuch = { flags: 1 << 15, components: [{ type: 10, content: 'x'.repeat(4001) }] };
    expect((await rejection(client.rest.post(`/channels/${channel.id}/messages`, { body: tooMuch }))).code).toBe(50035);
    const drop = await rejection(client.rest.patch(`/channels/${channel.id}/messages/${ok.id}`, { body: { flags: 0, content: 'legacy again' } }));
    expect(drop.code).toBe(50035);
  });
});

describe('REST errors', () => {
  it('answers 50035, 10008, 50013, 50001, 50083 and 30046 like Discord', async () => {
    h = await startHarness({ rateLimits: false, oldMessageEdits: { ageMs: 0, limit: 1, windowMs: 60_000 } });
    const client = await h.login();
    const channel = await general(h, client);

    const tooLong = await rejection(channel.send('x'.repeat(2001)));
    expect([tooLong.status, tooLong.code, tooLong.rawError.message]).toEqual([400, 50035, 'Invalid Form Body']);
    expect(tooLong.rawError.errors).toEqual({ content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } });

    const badRow = new ActionRowBuilder<ButtonBuilder>().addComponents(
      ...[1, 2, 3, 4, 5, 6].map((i) => new ButtonBuilder().setCustomId(`b${i}`).setLabel(`B${i}`).setStyle(ButtonStyle.Primary)),
    );
    const sixButtons = await rejection(channel.send({ content: 'x', components: [badRow.toJSON()] }));
    expect(sixButtons.code).toBe(50035);
    expect(sixButtons.rawError.errors.components['0'].components._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');

    const gone = await channel.send('to delete');
    await gone.delete();
    const unknown = await rejection(channel.messages.fetch({ message: gone.id, force: true }));
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 10008, 'Unknown Message']);

    const old = await channel.send('first');
    await old.edit('second');
    const limited = await rejection(old.edit('third'));
    expect(limited.code).toBe(30046);

    const thread = await old.startThread({ name: 'archive me' });
    const inThread = await thread.send('in thread');
    h.server.archiveThread(thread.id);
    const archived = await rejection(inThread.edit('too late'));
    expect([archived.status, archived.code]).toEqual([400, 50083]);

    h.server.setBotPermissions('general', { deny: ['SendMessages'] });
    const denied = await rejection(channel.send('no'));
    expect([denied.status, denied.code, denied.message]).toEqual([403, 50013, 'Missing Permissions']);
    h.server.setBotPermissions('general', { deny: ['ViewChannel'] });
    const hidden = await rejection(channel.send('no'));
    expect([hidden.status, hidden.code, hidden.message]).toEqual([403, 50001, 'Missing Access']);
    const none = await rejection(client.rest.post(`/channels/${'1'.repeat(18)}/messages`, { body: { content: 'x' } }));
    expect(none.code).toBe(10003);
  });
});
