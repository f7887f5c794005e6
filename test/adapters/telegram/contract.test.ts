/**
 * The Telegram adapter passes the ChannelAdapter contract suite against the fake Bot API (real HTTP, its
 * length checks and flood control at 20× speed), in a private chat and a group.
 */
import { telegramThread } from '../../../src/adapters/telegram/thread';
import { runContractSuite } from '../contract-suite';
import { startHarness } from './harness';

const GROUP = { id: -1007770001, type: 'supergroup' as const, title: 'Contract' };

runContractSuite('telegram', async () => {
  const h = await startHarness({ factor: 20 });
  h.server.registerChat(GROUP);
  h.server.registerChat({ id: 4242, type: 'private', first_name: 'Ann' });
  const adapter = h.adapter({ draftStreaming: false });
  await adapter.start({ onMessage: async () => undefined, onAction: async () => undefined });
  const visible = (chat: number, id: number) => h.server.botMessages(chat).find((m) => m.message_id === id);
  return {
    adapter,
    threads: [telegramThread(4242), telegramThread(GROUP.id)],
    shown: async (ref) => {
      if (ref.thread.platform !== 'telegram') return undefined;
      return visible(Number(ref.thread.chat), Number(ref.messageId))?.text;
    },
    removeBehindBack: async (ref) => {
      if (ref.thread.platform === 'telegram') h.server.store.chats.get(Number(ref.thread.chat))!.messages.delete(Number(ref.messageId));
    },
    close: () => h.cleanup(),
  };
});
