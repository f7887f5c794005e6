/**
 * The Slack adapter end to end: the real gateway process (built CLI, its own PENGUIN_HOME) against the fake
 * Slack (signed Events API deliveries to POST /slack/events, or Socket Mode; Web API with Slack's limits)
 * and the fake OpenAI server. Mentions answered in their thread by a native stream; follow-ups; DMs; text
 * commands; approvals and who may press them; redeliveries and forged requests; stop.
 */
import { slowTurn, turn, type RecordedRequest } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { ALICE, botReplies, buttonLabels, hasButton, isCard, openSlackWorld, waitForCard, waitForFinal, type SlackWorld, type SlackWorldOptions } from './slack-world';
import { splitReply } from './telegram-world';

let w: SlackWorld | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function world(o: SlackWorldOptions = {}): Promise<SlackWorld> {
  w = await openSlackWorld(o);
  await w.start();
  return w;
}


const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });
const tooled = (wd: SlackWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);

function toolResult(req: RecordedRequest, callId: string): string {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === callId);
  if (!m) throw new Error(`no tool message for ${callId}`);
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

describe('Slack end to end (real gateway process, HTTP events)', () => {
  it('answers a mention in its thread with a native stream, once, and the final text is the answer exactly', async () => {
    const wd = await world();
    const answer = 'Hello from the thread! This answer arrives in small pieces.\n\nIt has a second paragraph, **in bold**.';
    wd.model.enqueue(slowTurn(answer, 40, 6));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'say hello');
    const final = await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'second paragraph');

    expect(final.thread_ts).toBe(m.ts);
    expect(final.visibleText).toBe(answer);
    expect(botReplies(wd, wd.slack.defaultChannel, m.ts)).toHaveLength(1);
    const start = wd.slack.callsTo('chat.startStream');
    expect(start).toHaveLength(1);
    expect(start[0].params).toMatchObject({ thread_ts: m.ts, recipient_user_id: ALICE, recipient_team_id: wd.slack.team.id });
    expect(wd.slack.callsTo('chat.appendStream').filter((c) => c.ok).length).toBeGreaterThanOrEqual(1);
    expect(final.stream?.state).toBe('completed');
    // the typing indicator came first: Slack's "is thinking…" status in the thread
    const first = wd.slack.calls.find((c) => c.channel === wd.slack.defaultChannel)!;
    expect(first.method).toBe('assistant.threads.setStatus');
    expect(wd.slack.rateLimitedCount()).toBe(0);
    expect(tooled(wd)).toHaveLength(1);
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toContain('say hello');
    expect(JSON.stringify(tooled(wd)[0].body.messages)).not.toContain('<@');
  });

  it('continues the session on a follow-up in the thread without a mention, and ignores unthreaded chatter', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'First answer.' }), turn({ text: 'Second answer, same session.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'first question');
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'First answer.');
    wd.slack.message(wd.slack.defaultChannel, ALICE, 'zebra chatter in the channel');
    wd.slack.message(wd.slack.defaultChannel, ALICE, 'and a follow-up', { thread_ts: m.ts });
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Second answer');

    expect(tooled(wd)).toHaveLength(2);
    const second = JSON.stringify(tooled(wd)[1].body.messages);
    expect(second).toContain('first question');
    expect(second).toContain('and a follow-up');
    expect(second).not.toContain('zebra chatter');
    const { body } = await wd.admin('/api/sessions');
    expect(body.sessions).toHaveLength(1);
    expect(body.sessions[0].binding_key).toBe(`slack:${wd.slack.team.id}:${wd.slack.defaultChannel}:${m.ts}`);
  });

  it('answers a DM in a thread under the message', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'Hi Alice, in a thread.' }));
    const d = wd.slack.dmMessage(ALICE, 'hello bot');
    const final = await waitForFinal(wd, d.channel, d.ts, 'Hi Alice');
    expect(final.thread_ts).toBe(d.ts);
    expect(final.visibleText).toBe('Hi Alice, in a thread.');
    expect(wd.slack.channelState(d.channel).messages.filter((x) => x.from === 'bot')).toHaveLength(0);
  });

  it('turns "new" after the mention into /new, and "status" into /status', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'Answer one.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'question one');
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Answer one.');
    wd.slack.mention(wd.slack.defaultChannel, ALICE, 'new', { thread_ts: m.ts });
    await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => x.visibleText.startsWith('🆕 New session')), 10_000, '/new notice');
    wd.slack.mention(wd.slack.defaultChannel, ALICE, 'status', { thread_ts: m.ts });
    const status = await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => /^(Session:|No session yet)/.test(x.visibleText)), 10_000, '/status answer');
    expect(status.visibleText).toMatch(/^No session yet/);
    expect(tooled(wd)).toHaveLength(1);
  });

  it('asks before exec_command with a Block Kit card; Allow runs it and the card shows who allowed it', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ toolCalls: [execCall('call_allow', 'echo slack-marker-$((6*7))')] }), turn({ text: 'The command printed the marker.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'run the marker command');
    const card = await waitForCard(wd, wd.slack.defaultChannel, m.ts);
    expect(buttonLabels(card)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect(card.blocks?.map((b) => b.type)).toEqual(['section', 'section', 'context', 'actions']);
    expect(card.visibleText).toContain('exec_command');
    expect(card.visibleText).toContain('echo slack-marker-$((6*7))');

    const click = wd.slack.clickButton(card.ts, 'Allow', ALICE);
    expect((await click.done).state).toBe('acked');
    const final = await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'The command printed the marker.');
    expect(toolResult(tooled(wd)[1], 'call_allow')).toContain('slack-marker-42');
    const after = wd.slack.messageState(card.ts)!;
    expect(after.visibleText).toMatch(/^✅ \*Allowed\* by .+: `exec_command`/);
    expect(buttonLabels(after)).toEqual([]);
    expect(splitReply(final.visibleText).answer).toBe('The command printed the marker.');
  });

  it('Deny gives the model the denial; a stranger clicking gets an ephemeral "not yours" and the card stays', async () => {
    const wd = await world();
    const mallory = wd.slack.addUser({ id: 'U0MALLORY1', name: 'mallory' });
    wd.slack.store.channel({ id: wd.slack.defaultChannel, members: [mallory] });
    wd.model.enqueue(turn({ toolCalls: [execCall('call_deny', 'echo never')] }), turn({ text: 'Understood, not running it.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'run something');
    const card = await waitForCard(wd, wd.slack.defaultChannel, m.ts);

    wd.slack.clickButton(card.ts, 'Allow', mallory);
    const notice = await wd.slack.waitFor(() => wd.slack.ephemeralFor(mallory)[0], 10_000, 'ephemeral refusal');
    expect(notice.text).toContain('not yours');
    expect(notice.thread_ts).toBe(m.ts);
    expect(buttonLabels(wd.slack.messageState(card.ts)!)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect((await wd.admin('/api/approvals?state=pending')).body.approvals).toHaveLength(1);

    wd.slack.clickButton(card.ts, 'Deny', ALICE);
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Understood, not running it.');
    expect(toolResult(tooled(wd)[1], 'call_deny')).toContain('denied');
    const after = wd.slack.messageState(card.ts)!;
    expect(after.visibleText).toMatch(/^⛔ \*Denied\* by /);
    expect(buttonLabels(after)).toEqual([]);
  });

  it('answers a redelivered event (X-Slack-Retry-Num: 1) once', async () => {
    const wd = await world();
    wd.model.enqueue(turn({ text: 'Only once.' }), turn({ text: 'A second answer must never come.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'answer me once');
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Only once.');
    const again = wd.slack.redeliver(m.delivery, { retryNum: 1 });
    const d = await again.done;
    expect(d.attempts.at(-1)).toMatchObject({ status: 200, retryNum: 1 });
    // a later event proves the redelivery was handled (and dropped) before it
    wd.slack.message(wd.slack.defaultChannel, ALICE, 'status', { thread_ts: m.ts });
    await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => x.visibleText.includes('Session:')), 10_000, 'status');
    expect(tooled(wd)).toHaveLength(1);
    expect(botReplies(wd, wd.slack.defaultChannel, m.ts).filter((x) => x.visibleText.includes('Only once.'))).toHaveLength(1);
  });

  it('refuses a forged signature and a timestamp older than 5 minutes with 401, and answers neither', async () => {
    const wd = await world();
    const forged = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'forged', { forge: 'bad-signature', retry: false });
    const stale = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'stale', { forge: 'stale-timestamp', retry: false });
    expect((await forged.delivery.done).attempts[0].status).toBe(401);
    expect((await stale.delivery.done).attempts[0].status).toBe(401);
    wd.model.enqueue(turn({ text: 'The genuine one.' }));
    const real = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'genuine');
    await waitForFinal(wd, wd.slack.defaultChannel, real.ts, 'The genuine one.');
    expect(botReplies(wd, wd.slack.defaultChannel, forged.ts)).toHaveLength(0);
    expect(botReplies(wd, wd.slack.defaultChannel, stale.ts)).toHaveLength(0);
    expect(tooled(wd)).toHaveLength(1);
  });

  it('"stop" after the mention aborts the running Task and the reply says so', async () => {
    const wd = await world();
    const long = 'This is a long answer that keeps going for quite a while, word after word. '.repeat(10);
    wd.model.enqueue(slowTurn(long, 40));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'talk for a while');
    await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => x.visibleText.includes('long answer')), 10_000, 'streaming');
    wd.slack.mention(wd.slack.defaultChannel, ALICE, 'stop', { thread_ts: m.ts });
    const final = await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => !isCard(x) && x.visibleText.startsWith('⛔ aborted') && !hasButton(x, 'Stop')), 15_000, 'aborted reply');
    const reply = splitReply(final.visibleText);
    expect(reply.status).toBe('⛔ aborted: aborted by user');
    expect(reply.answer.length).toBeGreaterThan(0);
    expect(long.startsWith(reply.answer)).toBe(true);
    expect(reply.answer.length).toBeLessThan(long.trimEnd().length);
  });
});
