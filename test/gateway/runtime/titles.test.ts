/**
 * Conversation titles reach platforms that show them (ChannelAdapter.setTitle, e.g. Slack assistant
 * threads): the first line of the first message at once, then the model's title after the first reply.
 */
import { turn } from '../../fakes/openai-server';
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
