/**
 * The Slack adapter passes the ChannelAdapter contract suite against the fake Slack (real HTTP Web API,
 * Slack's block checks and per-method rate limits), in an IM and in a channel thread.
 */
import { slackThread } from '../../../src/adapters/slack/thread';
import { runContractSuite } from '../contract-suite';
import { startSlackHarness } from './harness';

runContractSuite('slack', async () => {
  const h = await startSlackHarness();
  const adapter = await h.httpAdapter({ nativeStreaming: false });
  await adapter.start({ onMessage: async () => undefined, onAction: async () => undefined });
  const team = h.server.team.id;
  const im = h.server.dm(h.server.defaultUser);
  const dmRoot = h.server.dmMessage(h.server.defaultUser, 'hello');
  const channelRoot = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'contract');
  return {
    adapter,
    threads: [slackThread(team, im, dmRoot.ts), slackThread(team, h.server.defaultChannel, channelRoot.ts)],
    shown: async (ref) => h.server.messageState(ref.messageId)?.visibleText,
    removeBehindBack: async (ref) => {
      const m = h.server.messageState(ref.messageId);
      if (m) h.server.store.deleteMessage(h.server.store.channels.get(m.channel)!, m.ts);
    },
    close: () => h.cleanup(),
  };
});
