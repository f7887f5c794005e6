/**
 * Conversation titles reach platforms that show them (ChannelAdapter.setTitle, e.g. Slack assistant
 * threads): the first line of the first message once the model answers (never in front of its request),
 * then the model's title after the first reply; title requests wait while new conversations are still on
 * their way to their first model request.
 */
import { slowTurn, turn } from '../../fakes/openai-server';
import { FakeChatAdapter } from './fake-chat-adapter';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('shows the fallback title, then the model title, on the conversation', async () => {
  const chat = new FakeChatAdapter();
  h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
  h.model.enqueue(turn({ text: 'Here is the plan.' }));
  await chat.inject(chat.dm({ id: '42' }, 'plan the release\nwith details', '1'));
  await h.waitFor('model title', () => chat.titles.length === 2);
  expect(chat.titles).toEqual([
    { chat: 'telegram:42:-', title: 'plan the release' },
    { chat: 'telegram:42:-', title: 'A short title' },
  ]);
});

it('writes the first-line title once the model answers, not in front of its request', async () => {
  const chat = new FakeChatAdapter();
  h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
  // The first chunk comes 300 ms after the request: the request is seen with no title anywhere yet.
  h.model.enqueue(slowTurn('Here is the plan.', 300));
  await chat.inject(chat.dm({ id: '42' }, 'plan the release', '1'));
  await h.waitFor('model request', () => h!.model.requests.length === 1);
  expect(chat.titles).toEqual([]);
  await h.waitFor('fallback title', () => chat.titles.length >= 1);
  expect(chat.titles[0]).toEqual({ chat: 'telegram:42:-', title: 'plan the release' });
});

it('asks for no title while a burst of new conversations is still on its way to their first answers', async () => {
  const chat = new FakeChatAdapter();
  const users = Array.from({ length: 30 }, (_, i) => String(100 + i));
  h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: users.map((u) => `telegram:${u}`).join(',') } });
  await Promise.all(users.map((u, i) => chat.inject(chat.dm({ id: u }, `question number ${i}`, `e${i}`))));
  await h.waitFor('every model title', () => chat.titles.filter((t) => t.title === 'A short title').length === users.length);
  const tooled = h.model.requests.map((r, i) => ((r.body as { tools?: unknown[] }).tools?.length ? i : -1)).filter((i) => i >= 0);
  const titles = h.model.requests.map((r, i) => ((r.body as { tools?: unknown[] }).tools?.length ? -1 : i)).filter((i) => i >= 0);
  expect(tooled).toHaveLength(users.length);
  expect(titles).toHaveLength(users.length);
  expect(Math.max(...tooled)).toBeLessThan(Math.min(...titles));
});
