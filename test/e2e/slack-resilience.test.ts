/**
 * The Slack adapter end to end under stress (the real gateway process, the fake Slack and model): five
 * threads sharing one workspace's chat.update budget with a 429 injected, a crash mid-stream finalised and
 * continued by the next process, Socket Mode answering a mention, and a Socket Mode link that the fake
 * keeps open but silent, detected and replaced before the next mention is answered.
 */
import { finishChunk, stream, textChunks, turn, usageChunk } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { ADMIN_TOKEN, ALICE, botReplies, buttonLabels, hasButton, isFinalReply, openSlackWorld, waitForFinal, type SlackWorld, type SlackWorldOptions } from './slack-world';
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

const slowTurn = (text: string, delayMs: number, size = 8) =>
  stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk({ prompt_tokens: 10, completion_tokens: 5 })], { chunkDelayMs: delayMs });

it('five threads at once share the workspace chat.update budget: a 429 is obeyed, no second one, no text lost', async () => {
  const wd = await world({ config: { slack: { native_streaming: false } }, slack: { rateLimits: { 'chat.update': { perMinute: 50 } } } });
  const answers = Array.from({ length: 5 }, (_, i) => `Thread ${i} answer: ${'every word of this reply is edited in place while it streams, '.repeat(3)}the end of ${i}.`);
  for (const a of answers) wd.model.enqueue(slowTurn(a, 30, 6));
  wd.slack.failNext({ method: 'chat.update', with: { rateLimited: 2 } });
  const roots = answers.map((_, i) => wd.slack.mention(wd.slack.defaultChannel, ALICE, `question ${i}`));
  const finals = await Promise.all(roots.map((m) => wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => isFinalReply(x) && x.visibleText.includes('the end of')), 60_000, `final in ${m.ts}`)));

  const shown = finals.map((f) => splitReply(f.visibleText).answer).sort();
  expect(shown).toEqual([...answers].sort());
  for (const m of roots) expect(botReplies(wd, wd.slack.defaultChannel, m.ts)).toHaveLength(1);
  expect(wd.slack.callsTo('chat.update').filter((c) => c.status === 429)).toHaveLength(1);
  expect(wd.slack.rateLimitedCount()).toBe(1);
  // after the 429 the workspace's chat.update budget was paused for Retry-After (updates already on their
  // way when Slack answered it may still arrive just after it)
  const limited = wd.slack.callsTo('chat.update').find((c) => c.status === 429)!;
  const early = wd.slack.callsTo('chat.update').filter((c) => c.at > limited.at + 500 && c.at < limited.at + 2_000);
  expect(early.map((c) => `${c.at - limited.at} ms after the 429`)).toEqual([]);
  expect(wd.slack.callsTo('chat.startStream')).toHaveLength(0);
}, 90_000);

it('after a crash mid-stream, the next process finalises the cut-off reply in place and offers Continue', async () => {
  const wd = await world();
  wd.model.enqueue(slowTurn('Words keep streaming into the thread until the crash. '.repeat(12), 60));
  const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'start a long job');
  const live = await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => x.stream?.state === 'in_progress' && x.visibleText.includes('Words keep')), 10_000, 'stream');
  await wd.slack.waitFor(() => wd.slack.callsTo('chat.appendStream').filter((c) => c.ok).length >= 2, 10_000, 'two appends');
  await wd.gw.crash();
  expect(wd.slack.messageState(live.ts)!.stream?.state).toBe('in_progress');

  wd.model.enqueue(turn({ text: 'Continuing after the crash.' }));
  await wd.start();
  const note = await wd.slack.waitFor(() => botReplies(wd, wd.slack.defaultChannel, m.ts).find((x) => hasButton(x, 'Continue')), 15_000, 'Continue offer');
  expect(note.visibleText).toContain('the reply above is incomplete');
  const cut = wd.slack.messageState(live.ts)!;
  expect(cut.stream?.state).toBe('completed');
  expect(buttonLabels(cut)).toEqual([]);
  // the text the ledger last recorded stays (a prefix of the answer), with the note; the stream is settled
  const [shownText, noteLine] = cut.visibleText.split('\n\n');
  expect(noteLine).toBe('_⚠️ interrupted: the gateway restarted_');
  expect('Words keep streaming into the thread until the crash. '.repeat(12).startsWith(shownText)).toBe(true);
  expect(shownText.length).toBeGreaterThan(0);
  expect(wd.slack.callsTo('chat.stopStream').filter((c) => c.params.ts === live.ts && c.ok)).toHaveLength(1);

  wd.slack.clickButton(note.ts, 'Continue', ALICE);
  const final = await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Continuing after the crash.');
  expect(splitReply(final.visibleText).answer).toBe('Continuing after the crash.');
}, 60_000);

describe('Socket Mode', () => {
  it('answers a mention over Socket Mode (no request URL at all)', async () => {
    const wd = await world({ mode: 'socket' });
    wd.model.enqueue(turn({ text: 'Over the socket.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'ping over the socket');
    const final = await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Over the socket.');
    expect(final.visibleText).toBe('Over the socket.');
    expect(wd.slack.callsTo('apps.connections.open')).toHaveLength(1);
    expect((await m.delivery.done).mode).toBe('socket');
  });

  it('replaces a link the fake keeps open but silent, then answers the next mention', async () => {
    const wd = await world({ mode: 'socket', config: { slack: { socket_silence_ms: 1500 } }, slack: { socket: { pingIntervalMs: 0, ackTimeoutMs: 1000 } } });
    expect(wd.slack.socketConnections().filter((c) => c.state === 'open')).toHaveLength(1);
    const [first] = wd.slack.socketConnections();
    wd.slack.zombieSocket(first.id);
    await wd.slack.waitFor(() => wd.slack.socketConnections().some((c) => c.id !== first.id && c.state === 'open') || undefined, 20_000, 'a fresh link');
    await wd.slack.waitFor(() => wd.slack.socketConnections().find((c) => c.id === first.id)!.state === 'closed' || undefined, 20_000, 'the zombie closed');

    wd.model.enqueue(turn({ text: 'Answered on the fresh link.' }));
    const m = wd.slack.mention(wd.slack.defaultChannel, ALICE, 'are you there?');
    await waitForFinal(wd, wd.slack.defaultChannel, m.ts, 'Answered on the fresh link.');
    const ready = await fetch(`${wd.gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { adapters: unknown[] }).adapters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'slack', state: 'connected' })]));
    const metrics = await fetch(`${wd.gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await metrics.text()).toMatch(/adapter_up\{platform="slack"\} 1/);
  }, 60_000);
});
