/** The web playground adapter passes the ChannelAdapter contract suite (in process: it is its own platform). */
import { WebAdapter } from '../../../src/adapters/web/web-adapter';
import { runContractSuite } from '../contract-suite';

runContractSuite('web', async () => {
  const adapter = new WebAdapter();
  await adapter.start({ onMessage: async () => undefined, onAction: async () => undefined });
  const conv = (id: string) => adapter.messages(id);
  return {
    adapter,
    threads: [{ platform: 'web', conversation: 'contract' }],
    shown: async (ref) => conv(ref.thread.platform === 'web' ? ref.thread.conversation : '').find((m) => m.id === ref.messageId)?.text,
    removeBehindBack: async (ref) => adapter.delete(ref),
    close: async () => undefined,
  };
});
