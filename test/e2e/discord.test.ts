/**
 * The Discord adapter end to end: the real gateway process (built CLI, its own PENGUIN_HOME) against the
 * fake Discord platform (the real discord.js client over REST and the gateway websocket, per-channel rate
 * buckets, 3 s interaction windows) and the fake OpenAI server, set up through the public environment only.
 * Covers `/ask` acknowledged and streamed into its reply, long answers split into the thread, mention
 * threads and follow-ups, approvals (allow, deny, a stranger refused), `/stop`, `/new`, idempotent command
 * registration across restarts, pings from model text, and a crash mid-stream finalised with Continue.
 */
import { finishChunk, stream, textChunks, turn, usageChunk, type RecordedRequest } from '../fakes/openai-server';
import type { InteractionHandle, MessageView } from '../fakes/discord-server';
import { buttonLabels, conversation, customIdOf, hasButton, inThread, isFinal, openDiscordWorld, type DiscordWorld, type DiscordWorldOptions } from './discord-world';
import { assertGatewayBuilt } from './gateway-process';

let w: DiscordWorld | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function world(o: DiscordWorldOptions = {}): Promise<DiscordWorld> {
  w = await openDiscordWorld(o);
  await w.start();
  return w;
}

function slowTurn(text: string, delayMs: number, size = 8) {
  return stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk({ prompt_tokens: 10, completion_tokens: 5 })], { chunkDelayMs: delayMs });
}

const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });
const tooled = (wd: DiscordWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);

function toolResult(req: RecordedRequest, callId: string): string {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === callId);
  if (!m) throw new Error(`no tool message for ${callId}`);
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** The `/ask` reply once it is final (filled, no Stop button) and `match` accepts it. */
const finalReply = (cmd: InteractionHandle, match: (m: MessageView) => boolean = () => true, ms = 15_000) => cmd.waitForResponse((m) => isFinal(m) && match(m), ms);

/** Polls what only the admin API shows (nothing on the fake announces the gateway's own bookkeeping). */
async function eventually<T>(read: () => Promise<T | undefined>, label: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const card = (wd: DiscordWorld, thread: string) => wd.dc.waitFor(() => inThread(wd.dc, thread).find((m) => hasButton(m, 'Allow')), 10_000, 'approval card');

describe('Discord end to end (real gateway process)', () => {
  it('acknowledges /ask within 3 s, streams into its reply and ends with exactly the answer, once, in a thread of its own', async () => {
    const wd = await world();
    const answer = 'Here is the plan, streamed in small pieces over a few seconds: first we look around, then we decide what matters, and then we do it carefully, one step after another.';
    wd.model.enqueue(slowTurn(answer, 100, 5));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'what is the plan?' });
    const acked = await cmd.waitForAck();
    expect(acked.ackType).toBe(5);
    expect(acked.ackLatencyMs).toBeLessThan(3000);
    const final = await finalReply(cmd, (m) => m.content === answer);

    expect(final.versions.filter((v) => v.includes('Here is the plan')).length).toBeGreaterThanOrEqual(3);
    expect(final.versions.slice(0, -1).some((v) => /^(✍️|💭)/u.test(v))).toBe(true);
    expect(wd.dc.channelView('general').threads).toEqual([{ id: final.id, name: 'what is the plan?', archived: false, starterMessageId: final.id }]);
    expect(wd.dc.botMessages(final.id)).toEqual([]);
    expect(wd.dc.transcript('general')).toEqual([`penguin-bot: ${answer}`]);
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toContain('what is the plan?');
    const { body } = await wd.admin('/api/sessions');
    expect(body.sessions.map((s: { binding_key: string }) => s.binding_key)).toEqual([`discord:${wd.dc.defaultGuild.id}:${wd.dc.channelId('general')}:${final.id}`]);
  });

  it('splits a 5,000-character answer into ordered messages of at most 2,000 characters that add up to it', async () => {
    const wd = await world();
    const para = (i: number) => `Paragraph ${i} of a long answer keeps going with plain words so that the whole reply needs several messages`;
    const paras: string[] = [];
    for (let i = 0; paras.join('\n\n').length < 5000; i++) paras.push(para(i));
    const answer = paras.join('\n\n');
    wd.model.enqueue(slowTurn(answer, 5, 250));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'write a lot' });
    const first = await cmd.waitForResponse((m) => !m.loading, 15_000);
    await wd.dc.waitFor(() => {
      const parts = conversation(wd.dc, first.id);
      return parts.length > 1 && parts.every(isFinal) && parts.at(-1)!.content.endsWith(para(paras.length - 1)) || undefined;
    }, 30_000, 'every part final');
    const parts = conversation(wd.dc, first.id);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) expect(p.content.length).toBeLessThanOrEqual(2000);
    expect(parts.map((p) => p.content).join('\n\n')).toBe(answer);
    expect(wd.dc.rateLimitedCount()).toBe(0);
  });

  it('opens a thread on a mention, and a follow-up in that thread continues the session without a mention', async () => {
    const wd = await world({ config: { discord: { message_content: true } }, discord: { privilegedIntents: { messageContent: true } } });
    wd.model.enqueue(turn({ text: 'First answer in the thread.' }), turn({ text: 'Second answer, same session.' }));
    const question = wd.dc.mention('general', 'alice', 'remember the word heron');
    await wd.dc.waitFor(() => inThread(wd.dc, question.id).find((m) => isFinal(m) && m.content === 'First answer in the thread.'), 10_000, 'first answer');
    expect(wd.dc.channelView('general').threads).toEqual([{ id: question.id, name: 'remember the word heron', archived: false, starterMessageId: question.id }]);

    wd.dc.message(question.id, 'alice', 'which word was it?');
    await wd.dc.waitFor(() => inThread(wd.dc, question.id).find((m) => isFinal(m) && m.content === 'Second answer, same session.'), 10_000, 'second answer');
    const second = JSON.stringify(tooled(wd)[1].body.messages);
    expect(second).toContain('remember the word heron');
    expect(second).toContain('which word was it?');
    const { body } = await wd.admin('/api/sessions');
    expect(body.sessions).toHaveLength(1);
    expect(wd.dc.transcript('general')).toEqual([`alice: <@${wd.dc.applicationId}> remember the word heron`]);
  });

  it('asks with buttons before exec_command; Allow runs it, a stranger is refused privately, Deny refuses it', async () => {
    const wd = await world({ config: { default_route: { approval_mode: 'always-ask' } } });
    wd.model.enqueue(
      turn({ toolCalls: [execCall('call_allow', 'echo e2e-marker-$((6*7))')] }), turn({ text: 'The command printed the marker.' }),
      turn({ toolCalls: [execCall('call_deny', 'echo never')] }), turn({ text: 'Understood, not running it.' }),
    );
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'run the marker command' });
    const thread = (await cmd.waitForResponse((m) => !m.loading)).id;
    const ask = await card(wd, thread);
    expect(buttonLabels(ask)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect(ask.content).toContain('echo e2e-marker-$((6*7))');
    expect(ask.allowedMentions).toEqual({ parse: [], replied_user: false });

    const stranger = wd.dc.clickButton(ask.id, customIdOf(ask, 'Allow'), 'bob');
    expect((await stranger.waitForAck()).ackType).toBe(4);
    expect(wd.dc.ephemeralReplies('bob').map((m) => m.content)).toEqual(['This approval is not yours to decide.']);
    expect((await wd.admin('/api/approvals?state=pending')).body.approvals).toHaveLength(1);

    const allow = wd.dc.clickButton(ask.id, customIdOf(ask, 'Allow'), 'alice');
    expect((await allow.waitForAck()).ackType).toBe(6);
    await finalReply(cmd, (m) => m.content.endsWith('The command printed the marker.'));
    expect(wd.dc.messageView(ask.id)).toMatchObject({ buttons: [] });
    expect(wd.dc.messageView(ask.id).content).toMatch(/^✅ \*\*Allowed\*\* by alice: `exec_command`/);
    expect(toolResult(tooled(wd)[1], 'call_allow')).toContain('e2e-marker-42');

    wd.dc.message(thread, 'alice', `<@${wd.dc.applicationId}> now run another one`);
    const second = await wd.dc.waitFor(() => wd.dc.botMessages(thread).find((m) => m.id !== ask.id && hasButton(m, 'Deny')), 10_000, 'second card');
    wd.dc.clickButton(second.id, customIdOf(second, 'Deny'), 'alice');
    await wd.dc.waitFor(() => wd.dc.botMessages(thread).find((m) => isFinal(m) && m.content.endsWith('Understood, not running it.')), 10_000, 'answer after the denial');
    expect(wd.dc.messageView(second.id).content).toMatch(/^⛔ \*\*Denied\*\* by alice: `exec_command`/);
    expect(toolResult(tooled(wd)[3], 'call_deny')).toContain('Tool call denied by user.');
  });

  it('/stop in the thread aborts the running Task; the reply says why and the command confirms', async () => {
    const wd = await world();
    const long = 'This is a long answer that keeps going for quite a while, word after word. '.repeat(8);
    wd.model.enqueue(slowTurn(long, 50));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'talk for a while' });
    const live = await cmd.waitForResponse((m) => m.content.includes('long answer') && hasButton(m, 'Stop'), 10_000);
    const stop = wd.dc.slashCommand(live.id, 'alice', 'stop');
    const final = await finalReply(cmd, (m) => m.content.startsWith('⛔ aborted'));
    expect(final.content).toMatch(/^⛔ aborted: aborted by user\n\nThis is a long answer/);
    expect((await stop.waitForResponse((m) => !m.loading)).content).toBe('⏹️ Stopped.');
  });

  it('the Stop button on the live reply aborts the Task; a stranger may not press it', async () => {
    const wd = await world();
    wd.model.enqueue(slowTurn('A long answer that goes on and on, word after word, for a good while. '.repeat(8), 50));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'keep talking' });
    const live = await cmd.waitForResponse((m) => m.content.includes('long answer') && hasButton(m, 'Stop'), 10_000);
    const stranger = wd.dc.clickButton(live.id, customIdOf(live, 'Stop'), 'bob');
    expect((await stranger.waitForAck()).ackType).toBe(4);
    expect(wd.dc.ephemeralReplies('bob').map((m) => m.content)).toEqual(['Only the person who started this task can stop it.']);
    const press = wd.dc.clickButton(live.id, customIdOf(live, 'Stop'), 'alice');
    expect((await press.waitForAck()).ackType).toBe(6);
    const final = await finalReply(cmd, (m) => m.content.startsWith('⛔ aborted'));
    expect(final.content).toMatch(/^⛔ aborted: aborted by user\n\nA long answer/);
  });

  it('/new in a DM starts a new session: the model no longer sees the first question', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'First session answer.' }), turn({ text: 'Second session answer.' }));
    const dm = wd.dc.dmChannelId('alice');
    wd.dc.dm('alice', 'first question');
    await wd.dc.waitFor(() => wd.dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'First session answer.'), 10_000, 'first answer');
    const fresh = wd.dc.dmSlashCommand('alice', 'new');
    expect((await fresh.waitForResponse((m) => !m.loading)).content).toMatch(/^🆕 New session/);
    wd.dc.dm('alice', 'second question');
    await wd.dc.waitFor(() => wd.dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'Second session answer.'), 10_000, 'second answer');
    const { body } = await wd.admin('/api/sessions');
    expect(body.sessions).toHaveLength(2);
    const second = JSON.stringify(tooled(wd)[1].body.messages);
    expect(second).toContain('second question');
    expect(second).not.toContain('first question');
  });

  it('registers the commands once: a second start lists them and writes nothing', async () => {
    const wd = await world();
    expect(wd.dc.callsTo('bulkOverwriteGlobalCommands')).toHaveLength(1);
    const creates = wd.dc.commandCreates('global');
    expect(await wd.gw.stop()).toBe(0);
    await wd.start();
    expect(wd.dc.callsTo('listGlobalCommands')).toHaveLength(2);
    expect(wd.dc.callsTo('bulkOverwriteGlobalCommands')).toHaveLength(1);
    expect(wd.dc.commandCreates('global')).toBe(creates);
    expect(wd.dc.rateLimitedCount()).toBe(0);
  });

  it('pings nobody whatever the model writes', async () => {
    const wd = await world();
    const role = wd.dc.addRole(wd.dc.defaultGuild.id, { name: 'oncall', mentionable: true }, ['bob']);
    wd.model.enqueue(turn({ text: `@everyone @here <@${wd.bob}> <@&${role.id}> wake up!` }));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'shout' });
    const final = await finalReply(cmd, (m) => m.content.includes('wake up!'));
    expect(final.pinged.any).toBe(false);
    expect(wd.dc.pingingMessages()).toEqual([]);
  });

  it('after a crash mid-stream, the next process finalises the cut-off reply in place and offers Continue in the thread', async () => {
    const wd = await world();
    wd.model.enqueue(slowTurn('Words keep flowing until the crash. '.repeat(12), 60));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'start a long job' });
    const live = await cmd.waitForResponse((m) => m.content.includes('Words keep') && hasButton(m, 'Stop'), 10_000);
    // a second edit, so the gateway has surely recorded what the first one showed before it dies
    await wd.dc.waitFor(() => wd.dc.messageView(live.id).versions.filter((v) => v.includes('Words keep')).length >= 2, 10_000, 'two edits');
    await wd.gw.crash();

    wd.model.enqueue(turn({ text: 'Continuing after the crash.' }));
    await wd.start();
    const note = await wd.dc.waitFor(() => wd.dc.botMessages(live.id).find((m) => hasButton(m, 'Continue')), 10_000, 'Continue offer');
    expect(note.content).toContain('the reply above is incomplete');
    const cut = wd.dc.messageView(live.id);
    expect(cut.buttons).toEqual([]);
    expect(cut.content).toMatch(/^Words keep flowing[\s\S]*\n\n\*⚠️ interrupted: the gateway restarted\*$/);

    wd.dc.clickButton(note.id, customIdOf(note, 'Continue'), 'alice');
    await wd.dc.waitFor(() => wd.dc.botMessages(live.id).find((m) => isFinal(m) && m.content === 'Continuing after the crash.'), 10_000, 'continuation');
    expect(JSON.stringify(tooled(wd).at(-1)!.body.messages)).toContain('start a long job');
  });

  it('after a crash with an approval pending, the next process marks the card expired and removes its buttons', async () => {
    const wd = await world({ config: { default_route: { approval_mode: 'always-ask' } } });
    wd.model.enqueue(turn({ toolCalls: [execCall('call_orphan', 'echo orphan')] }));
    const cmd = wd.dc.slashCommand('general', 'alice', 'ask', { prompt: 'run something, then crash' });
    const thread = (await cmd.waitForResponse((m) => !m.loading)).id;
    const ask = await card(wd, thread);
    // crash only once the gateway has recorded where its card is
    await eventually(async () => (await wd.admin('/api/approvals?state=pending')).body.approvals[0]?.card, 'the card recorded');
    await wd.gw.crash();
    await wd.start();
    const expired = await wd.dc.waitFor(() => (wd.dc.messageView(ask.id).content.startsWith('⌛') ? wd.dc.messageView(ask.id) : undefined), 10_000, 'expired card');
    expect(expired.content).toMatch(/^⌛ \*\*Expired\*\* \(gateway restarted\): `exec_command`/);
    expect(expired.buttons).toEqual([]);
    expect((await wd.admin('/api/approvals?state=pending')).body.approvals).toEqual([]);
  });

  it('pairs a guild no route names under the default group policy, then answers there', async () => {
    const wd = await world({ env: { PENGUIN_GROUP_POLICY: '' } });
    const first = wd.dc.mention('general', 'alice', 'hello bot?');
    const offer = await wd.dc.waitFor(() => inThread(wd.dc, first.id).find((m) => m.content.includes('pairing code')), 10_000, 'pairing code');
    expect(offer.content).toMatch(/^🔐 This group isn't approved yet\./);
    const code = /pairing code \*\*(\S+)\*\*/.exec(offer.content)![1];
    expect(tooled(wd)).toHaveLength(0);
    expect((await wd.admin(`/api/pairing/${code}/approve`, { method: 'POST' })).status).toBe(200);
    await wd.dc.waitFor(() => inThread(wd.dc, first.id).find((m) => m.content.startsWith('✅ This group is approved')), 10_000, 'approval notice');

    wd.model.enqueue(turn({ text: 'Hello, group.' }));
    const again = wd.dc.mention('general', 'bob', 'hello again');
    await wd.dc.waitFor(() => inThread(wd.dc, again.id).find((m) => isFinal(m) && m.content === 'Hello, group.'), 10_000, 'the answer');
  });

  it('surfaces a permission the bot lacks to the operator: logged at error and marked on the session', async () => {
    const wd = await world();
    wd.dc.setBotPermissions('general', { deny: ['SendMessagesInThreads'] });
    wd.model.enqueue(turn({ text: 'Nobody will read this.' }));
    wd.dc.mention('general', 'alice', 'can you hear me?');
    await wd.dc.waitFor(() => wd.dc.callsTo('createMessage').find((c) => c.status === 403), 10_000, 'the refused post');
    // the gateway marks the session after the writer gave up
    const problem = await eventually<string>(async () => (await wd.admin('/api/sessions')).body.sessions[0]?.platform_problem, 'the session marked');
    expect(problem).toMatch(/^permission: .*50013.*the bot needs View Channel and Send Messages in Threads here/);
    expect(wd.gw.output()).toMatch(/"level":50[^\n]*the platform refused this conversation/);
  });

  it('sends a DM photo to a vision model as an image part and a file as an attached-file line', async () => {
    const wd = await world();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    wd.model.enqueue(turn({ text: 'A tiny picture.' }), turn({ text: 'Read your notes.' }));
    const dm = wd.dc.dmChannelId('alice');
    wd.dc.dm('alice', 'what is this?', { attachments: [{ filename: 'dot.png', data: png, contentType: 'image/png' }] });
    await wd.dc.waitFor(() => wd.dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'A tiny picture.'), 10_000, 'photo answer');
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toContain(`data:image/png;base64,${png.toString('base64')}`);
    wd.dc.dm('alice', 'read my notes', { attachments: [{ filename: 'notes.txt', data: 'remember the heron', contentType: 'text/plain' }] });
    await wd.dc.waitFor(() => wd.dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'Read your notes.'), 10_000, 'file answer');
    expect(JSON.stringify(tooled(wd)[1].body.messages)).toMatch(/read my notes\\n\[attached file: [^\]]+notes\.txt\]/);
  });
});
