/**
 * Slack across two gateway instances on one PostgreSQL database and one data dir (issue 21), end to end:
 * real gateway processes `a` and `b`, the fake Slack and the fake model. HTTP mode: signed deliveries to the
 * load balancer; threads spread over both are answered once, a follow-up, a button press or a retry that
 * reaches the instance not owning the thread is handled by the owner (the press acked in time), and an
 * assistant thread belongs to the instance it opened on. Socket Mode: one connection per instance, envelopes
 * spread over both, each answered once by the owner. Skips without PostgreSQL.
 */
import { slowTurn, turn, type RecordedRequest } from '../fakes/openai-server';
import type { InjectResult } from '../fakes/slack-server';
import { openCluster, POSTGRES_SKIPPED, SLACK_EVENTS_PATH, type ClusterWorld } from './cluster-world';
import { assertGatewayBuilt } from './gateway-process';
import { until } from './schedule-files';
import { ALICE, botReplies, buttonLabels, waitForCard, waitForFinal } from './slack-world';
import { splitReply } from './telegram-world';

const LEASE_MS = 3000;
/** Slack wants an interaction acknowledged within this long, or it shows the person an error. */
const SLACK_ACK_MS = 3000;

let w: ClusterWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function cluster(mode: 'http' | 'socket'): Promise<ClusterWorld> {
  w = await openCluster({ platforms: { slack: mode }, config: { cluster: { lease_ms: LEASE_MS } } });
  await w.startAll();
  return w;
}

const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });
const tooled = (wd: ClusterWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);

/** The answer to "<kind> <n>": distinct per thread and turn, so a reply in the wrong place or twice shows. */
const answerTo = (kind: string, n: number) => `Answer to ${kind} ${n}: every word of this reply arrives, in order, exactly once.`;

/** The model answers the last "question N" / "follow-up N" it was asked. */
function answerAsked(wd: ClusterWorld): void {
  wd.model.setDefault((req) => {
    const asked = [...JSON.stringify(req.body.messages).matchAll(/(question|follow-up) (\d+)/g)].at(-1);
    return slowTurn(asked ? answerTo(asked[1], Number(asked[2])) : 'nothing was asked', 10);
  });
}

const threadKey = (wd: ClusterWorld, r: { channel: string; ts: string }) => `slack:${wd.slack.team.id}:${r.channel}:${r.ts}`;

/** The instance owning the thread's conversation, once one does (read through `via`: the index is shared). */
function ownerOf(wd: ClusterWorld, r: { channel: string; ts: string }, via = 'a'): Promise<string> {
  return until(`an owner of thread ${r.ts}`, async () => {
    const { body } = await wd.admin(via, '/api/sessions?limit=100');
    return (body.sessions as Array<{ binding_key: string | null; owner_instance: string | null }>).find((s) => s.binding_key === threadKey(wd, r))?.owner_instance ?? undefined;
  });
}

const otherThan = (wd: ClusterWorld, id: string) => wd.ids.find((x) => x !== id)!;

/** Requests to the Slack route the balancer handed each instance. */
function slackHits(wd: ClusterWorld): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of wd.lb.routed) {
    const id = wd.idOf(r.backend);
    if (id && r.path === SLACK_EVENTS_PATH) out[id] = (out[id] ?? 0) + 1;
  }
  return out;
}

/** Ten threads: channel mentions (Slack sends those as app_mention and message) and DMs, alternating. */
function tenThreads(wd: ClusterWorld): InjectResult[] {
  const ch = wd.slack.defaultChannel;
  return Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? wd.slack.mention(ch, ALICE, `question ${i}`, { alsoMessageEvent: true }) : wd.slack.dmMessage(ALICE, `question ${i}`)));
}

/** A person writes again in the thread (no mention: a follow-up). */
const followUp = (wd: ClusterWorld, r: InjectResult, text: string) => wd.slack.message(r.channel, ALICE, text, { thread_ts: r.ts });

/** Each thread holds exactly these replies, in order, and its one session asked the model both turns. */
function expectAnswered(wd: ClusterWorld, roots: InjectResult[], turns: Array<(n: number) => string>): void {
  for (const [n, r] of roots.entries()) {
    const replies = botReplies(wd, r.channel, r.ts);
    expect({ thread: n, replies: replies.map((m) => m.visibleText) }).toEqual({ thread: n, replies: turns.map((t) => t(n)) });
    expect(replies.every((m) => m.thread_ts === r.ts)).toBe(true);
  }
  expect(tooled(wd)).toHaveLength(roots.length * turns.length);
}

beforeAll(() => assertGatewayBuilt());

const describeCluster = POSTGRES_SKIPPED ? describe.skip : describe;
const skipped = POSTGRES_SKIPPED ? ` [skipped: ${POSTGRES_SKIPPED}]` : '';

describeCluster(`Slack on a gateway cluster, HTTP mode behind the load balancer (real processes)${skipped}`, () => {
  it('answers 10 threads spread over both instances once each, and follow-ups that reach the other instance in the same session', async () => {
    const wd = await cluster('http');
    answerAsked(wd);
    const roots = tenThreads(wd);
    for (const [n, r] of roots.entries()) await waitForFinal(wd, r.channel, r.ts, answerTo('question', n), 60_000);
    expectAnswered(wd, roots, [(n) => answerTo('question', n)]);
    const owners = await Promise.all(roots.map((r) => ownerOf(wd, r)));
    expect(new Set(owners)).toEqual(new Set(['a', 'b']));

    // every follow-up goes to the instance that does not own its thread
    for (const [n, r] of roots.entries()) {
      wd.lb.only(wd.gw(otherThan(wd, owners[n])).url);
      expect((await followUp(wd, r, `follow-up ${n}`).delivery.done).state).toBe('acked');
    }
    wd.lb.clear();
    for (const [n, r] of roots.entries()) await waitForFinal(wd, r.channel, r.ts, answerTo('follow-up', n), 60_000);
    expectAnswered(wd, roots, [(n) => answerTo('question', n), (n) => answerTo('follow-up', n)]);
    for (const [n, r] of roots.entries()) {
      const second = tooled(wd).find((q) => JSON.stringify(q.body.messages).includes(`follow-up ${n}`))!;
      expect(JSON.stringify(second.body.messages)).toContain(`question ${n}`);
      expect(await ownerOf(wd, r)).toBe(owners[n]);
    }
    expect(slackHits(wd)).toEqual({ a: expect.any(Number), b: expect.any(Number) });
    expect(wd.slack.deliveries.filter((d) => d.state !== 'acked')).toEqual([]);
    const { body } = await wd.admin('a', '/api/sessions?limit=100');
    expect(body.sessions).toHaveLength(roots.length);
  }, 120_000);

  it('resolves an approval whose button press reaches the instance that does not own the thread, acked within 3 s', async () => {
    const wd = await cluster('http');
    const ch = wd.slack.defaultChannel;
    wd.model.enqueue(turn({ toolCalls: [execCall('call_allow', 'echo cluster-marker-$((6*7))')] }), turn({ text: 'The command printed the marker.' }));
    wd.lb.only(wd.gw('a').url);
    const m = wd.slack.mention(ch, ALICE, 'run the marker command');
    const card = await waitForCard(wd, ch, m.ts);
    const owner = await ownerOf(wd, m);
    const other = otherThan(wd, owner);

    wd.lb.only(wd.gw(other).url);
    const before = slackHits(wd);
    const click = await wd.slack.clickButton(card.ts, 'Allow', ALICE).done;
    expect(click.state).toBe('acked');
    expect(click.attempts).toEqual([expect.objectContaining({ status: 200, acked: true })]);
    expect(click.attempts[0].durationMs).toBeLessThan(SLACK_ACK_MS);
    expect(slackHits(wd)[other]).toBe((before[other] ?? 0) + 1);

    const final = await waitForFinal(wd, ch, m.ts, 'The command printed the marker.');
    expect(splitReply(final.visibleText).answer).toBe('The command printed the marker.');
    expect(JSON.stringify(tooled(wd)[1].body.messages)).toContain('cluster-marker-42');
    const decided = wd.slack.messageState(card.ts)!;
    expect(decided.visibleText).toMatch(/^✅ \*Allowed\* by .+: `exec_command`/);
    expect(buttonLabels(decided)).toEqual([]);
    expect(wd.slack.ephemeralFor(ALICE)).toEqual([]);
    expect((await wd.admin(other, '/api/approvals?state=pending')).body.approvals).toEqual([]);
    expect(slackHits(wd)[owner]).toBe(before[owner]);
    // handed over, not taken over
    expect(await ownerOf(wd, m, other)).toBe(owner);
  }, 60_000);

  it('answers once when a retry (X-Slack-Retry-Num) reaches the other instance, after the first delivery or racing it', async () => {
    const wd = await cluster('http');
    const ch = wd.slack.defaultChannel;
    wd.model.enqueue(turn({ text: 'Only once.' }), turn({ text: 'Once as well.' }), turn({ text: 'A second answer must never come.' }));
    wd.lb.only(wd.gw('a').url);
    const first = wd.slack.mention(ch, ALICE, 'answer me once');
    await waitForFinal(wd, ch, first.ts, 'Only once.');
    wd.lb.only(wd.gw('b').url);
    const retried = await wd.slack.redeliver(first.delivery, { retryNum: 1 }).done;
    expect(retried.attempts).toEqual([expect.objectContaining({ status: 200, retryNum: 1 })]);

    // round-robin: the event and its retry land on different instances at once
    wd.lb.clear();
    const raced = wd.slack.mention(ch, ALICE, 'answer me once, racing');
    const retry = wd.slack.redeliver(raced.delivery, { retryNum: 1 });
    await Promise.all([raced.delivery.done, retry.done]);
    await waitForFinal(wd, ch, raced.ts, 'Once as well.');

    // A later event through each instance is handled after any retry that instance took (one thread, in order).
    for (const id of wd.ids) {
      wd.lb.only(wd.gw(id).url);
      for (const r of [first, raced]) await wd.slack.message(ch, ALICE, 'status', { thread_ts: r.ts }).delivery.done;
    }
    for (const r of [first, raced]) {
      await wd.slack.waitFor(() => botReplies(wd, ch, r.ts).filter((x) => x.visibleText.includes('Session:')).length === 2 || undefined, 15_000, `statuses in ${r.ts}`);
    }
    expect(tooled(wd)).toHaveLength(2);
    expect(botReplies(wd, ch, first.ts).filter((x) => x.visibleText.includes('Only once.'))).toHaveLength(1);
    expect(botReplies(wd, ch, raced.ts).filter((x) => x.visibleText.includes('Once as well.'))).toHaveLength(1);
    const routedRace = wd.lb.routed.filter((r) => r.path === SLACK_EVENTS_PATH).slice(2, 4).map((r) => wd.idOf(r.backend));
    expect(new Set(routedRace)).toEqual(new Set(['a', 'b']));
  }, 60_000);

  it('titles an assistant thread opened through one instance and first written in through the other', async () => {
    const wd = await cluster('http');
    wd.model.enqueue(turn({ text: 'Answered in the assistant pane.' }));
    wd.lb.only(wd.gw('b').url);
    const opened = wd.slack.assistantThreadStarted(ALICE);
    expect((await opened.delivery.done).state).toBe('acked');
    await wd.slack.waitFor(() => wd.slack.callsTo('assistant.threads.setSuggestedPrompts').find((c) => c.ok), 10_000, 'suggested prompts');

    wd.lb.only(wd.gw('a').url);
    wd.slack.dmMessage(ALICE, 'what can you do?', { thread_ts: opened.ts });
    await waitForFinal(wd, opened.channel, opened.ts, 'Answered in the assistant pane.');
    const titled = await wd.slack.waitFor(() => wd.slack.callsTo('assistant.threads.setTitle').find((c) => c.ok), 15_000, 'the thread titled');
    expect(titled.params).toMatchObject({ channel_id: opened.channel, thread_ts: opened.ts, title: 'what can you do?' });
    expect(botReplies(wd, opened.channel, opened.ts).map((m) => m.visibleText)).toEqual(['Answered in the assistant pane.']);
  }, 60_000);
});

describeCluster(`Slack on a gateway cluster, Socket Mode (real processes)${skipped}`, () => {
  it('keeps one connection per instance; envelopes spread over both are answered once, by the thread\'s owner', async () => {
    const wd = await cluster('socket');
    expect(wd.slack.socketConnections().filter((c) => c.state === 'open')).toHaveLength(2);
    expect(wd.slack.callsTo('apps.connections.open').filter((c) => c.ok)).toHaveLength(2);
    answerAsked(wd);
    // five roots then five follow-ups: with two connections taking turns, each follow-up reaches the other one
    const roots = Array.from({ length: 5 }, (_, n) => wd.slack.mention(wd.slack.defaultChannel, ALICE, `question ${n}`));
    for (const [n, r] of roots.entries()) await waitForFinal(wd, r.channel, r.ts, answerTo('question', n), 60_000);
    const follows = roots.map((r, n) => followUp(wd, r, `follow-up ${n}`));
    for (const [n, r] of roots.entries()) await waitForFinal(wd, r.channel, r.ts, answerTo('follow-up', n), 60_000);

    expectAnswered(wd, roots, [(n) => answerTo('question', n), (n) => answerTo('follow-up', n)]);
    const via = (d: InjectResult) => d.delivery.attempts.map((a) => a.connectionId);
    expect(new Set(roots.map((r) => via(r)[0]))).toEqual(new Set(wd.slack.socketConnections().map((c) => c.id)));
    for (const [n, r] of roots.entries()) {
      expect({ thread: n, root: via(r).length, followUp: via(follows[n]).length }).toEqual({ thread: n, root: 1, followUp: 1 });
      expect({ thread: n, sameConnection: via(follows[n])[0] === via(r)[0] }).toEqual({ thread: n, sameConnection: false });
      const second = tooled(wd).find((q) => JSON.stringify(q.body.messages).includes(`follow-up ${n}`))!;
      expect(JSON.stringify(second.body.messages)).toContain(`question ${n}`);
    }
    const owners = await Promise.all(roots.map((r) => ownerOf(wd, r)));
    expect(new Set(owners)).toEqual(new Set(['a', 'b']));
  }, 90_000);
});
