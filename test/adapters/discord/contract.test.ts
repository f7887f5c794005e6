/**
 * The Discord adapter passes the ChannelAdapter contract suite against the fake Discord platform (the real
 * discord.js client over REST and the gateway websocket, Discord's per-channel buckets and 2,000-character
 * limit), in a DM and a guild channel.
 */
import { discordThread } from '../../../src/adapters/discord/thread';
import { runContractSuite } from '../contract-suite';
import { startDiscordHarness } from './harness';

runContractSuite('discord', async () => {
  const h = await startDiscordHarness();
  const adapter = h.adapter();
  await adapter.start({ onMessage: async () => undefined, onAction: async () => undefined });
  const guild = h.server.defaultGuild;
  return {
    adapter,
    threads: [discordThread(null, h.server.dmChannelId('alice')), discordThread(guild.id, guild.channels.general)],
    shown: async (ref) => {
      const view = h.server.messageView(ref.messageId);
      return view.deleted ? undefined : view.content;
    },
    removeBehindBack: async (ref) => h.server.deleteUserMessage(ref.messageId),
    close: () => h.cleanup(),
  };
});
