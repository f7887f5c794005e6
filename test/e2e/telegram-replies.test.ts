/**
 * What a finished reply looks like and when it lands, end to end (the real gateway process, the fake Bot
 * API and model): the status line is live-only (a finished reply is its tool lines and the answer; the
 * usage footer is opt-in); the final write never lands inside a chat's one-write-per-second budget, even
 * right after a live edit; with no model endpoint configured the bot says so instead of "key rejected".
 */
import type { CallRecord } from '../fakes/telegram-call-log';
import { finishChunk, stream, textChunks, turn, usageChunk } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { DM_USER, isFinalReply, openWorld, splitReply, type World, type WorldOptions } from './telegram-world';

let w: World | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function world(o: WorldOptions = {}): Promise<World> {
  w = await openWorld(o);
  await w.start();
  return w;
}

const slowTurn = (text: string, delayMs: number, size = 8) =>
  stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk({ prompt_tokens: 10, completion_tokens: 5 })], { chunkDelayMs: delayMs });

const finalWith = (wd: World, text: string, ms = 10_000) =>
  wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => isFinalReply(m) && (m.text ?? '').includes(text)), ms, `final reply with "${text}"`);

/** Sends and edits into a chat (what counts against its per-chat budget), in arrival order. */
const writes = (wd: World, chat: number): CallRecord[] =>
  wd.tg.calls.filter((c) => c.chatId === chat && (c.method === 'sendMessage' || c.method === 'editMessageText')).sort((a, b) => a.at - b.at);

it('a finished reply is its tool lines and the answer, without a status header', async () => {
  const wd = await world({ config: { default_route: { approval_mode: 'allow-all' } } });
  wd.model.enqueue(
    turn({ toolCalls: [{ id: 'c1', name: 'exec_command', arguments: JSON.stringify({ description: 'print a marker', cmd: 'echo marker' }) }] }),
    turn({ text: 'The marker is there.' }),
  );
  wd.tg.injectMessage({ chat: DM_USER, text: 'check the marker' });
  const final = await finalWith(wd, 'The marker is there.');
  const reply = splitReply(final.text!);
  expect(reply.status).toBe('');
  expect(reply.toolLines).toEqual([expect.stringMatching(/^✅ exec_command: print a marker/)]);
  expect(reply.answer).toBe('The marker is there.');
  expect(final.text).not.toMatch(/tokens|✅ done/);
});

it('a reply longer than one message commits its first part without the live status line', async () => {
  const wd = await world();
  const para = (i: number) => `Paragraph ${i}: a sentence that goes on for a while so that the reply needs a second message.`;
  const answer = Array.from({ length: 60 }, (_, i) => para(i)).join('\n\n');
  wd.model.enqueue(slowTurn(answer, 5, 200));
  wd.tg.injectMessage({ chat: DM_USER, text: 'write a lot' });
  await finalWith(wd, para(59), 30_000);
  const messages = wd.tg.botMessages(DM_USER);
  expect(messages.length).toBeGreaterThan(1);
  // no real message ever showed a live status line: it only sat on the draft of the open part
  const shown = wd.tg.calls.filter((c) => c.chatId === DM_USER && c.ok && (c.method === 'sendMessage' || c.method === 'editMessageText'));
  for (const c of shown) expect(String(c.params.text)).not.toMatch(/✍️|💭/);
  expect(messages.map((m) => m.text).join('\n\n')).toBe(answer);
});

it('the usage footer, when turned on, is one line under the answer', async () => {
  const wd = await world({ config: { reply: { usage_footer: true } } });
  wd.model.enqueue(turn({ text: 'Counted.' }));
  wd.tg.injectMessage({ chat: DM_USER, text: 'count' });
  const final = await finalWith(wd, 'Counted.');
  expect(final.text).toMatch(/^Counted\.\n\n15 tokens · \d+(\.\d+)? (ms|s)$/);
});

it('the final write waits for the chat budget: no two writes to a chat inside a second, no 429', async () => {
  const wd = await world({
    config: { telegram: { draft_streaming: false, streaming: { dm_edit_interval_ms: 1000 } } },
    // Telegram's one message a second per chat, without a burst (5 % slack for loopback jitter)
    telegram: { rateLimits: { perChat: { burst: 1, rate: 1, perMs: 950 } } },
  });
  const answer = 'Every word of this reply streams for a few seconds, edited in place once a second until the very end.';
  wd.model.enqueue(slowTurn(answer, 120, 6));
  wd.tg.injectMessage({ chat: DM_USER, text: 'stream slowly' });
  const final = await finalWith(wd, answer.slice(-20), 20_000);
  expect(splitReply(final.text!).answer).toBe(answer);
  expect(wd.tg.rateLimitedCount(DM_USER)).toBe(0);
  const w2 = writes(wd, DM_USER);
  expect(w2.length).toBeGreaterThan(2);
  const gaps = w2.slice(1).map((c, i) => c.at - w2[i].at);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(950);
});

it('with no model endpoint configured, says so (and how to fix it) instead of "key rejected"', async () => {
  const wd = await world({ env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', PENGUIN_MODEL: '' } });
  wd.tg.injectMessage({ chat: DM_USER, text: 'hello?' });
  const notice = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => m.text?.includes('no model endpoint is configured')), 10_000, 'notice');
  expect(notice.text).toMatch(/^⚙️ I can't answer yet: no model endpoint is configured \(deepseek\/deepseek-v4-flash at https:\/\/api\.deepseek\.com has no API key\)\. The operator can set one up \(penguin-gateway doctor says how\)\.$/);
  expect(notice.text).not.toContain('auth problem');
  expect(wd.model.requests).toHaveLength(0);
  expect(wd.gw.output()).toMatch(/no model endpoint is configured.*the agent cannot answer/);
  expect(wd.gw.output()).toContain('OPENAI_API_KEY');
});
