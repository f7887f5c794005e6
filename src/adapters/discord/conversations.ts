/**
 * ConversationStarter: a scheduled run delivered to `discord:<guild>:<channel>`. The channel is looked up
 * (directory, else one REST fetch) and must be in the target's guild. In a text or announcement channel the
 * first message is posted there and a thread is opened on it the way a mention's is (ThreadOpener: its
 * name, its fallback), so the run's reply, its cards and members' follow-ups share `discord:<g>:<c>:<msg>`;
 * a thread Discord refuses for good (no Create Public Threads) leaves the conversation in the channel under
 * that message, and one that may pass (429, 5xx) is tried again on the first reply. A thread target is
 * posted into in place (follow-ups there need a mention unless the bot owns it). Any other channel (voice,
 * forum, category, DM), another guild's channel or one the bot cannot see throws a surfaced PlatformError
 * naming it, before anything is posted; once the first message is out, nothing is thrown.
 */
import type { Logger } from 'pino';
import type { DeliveryTarget } from '../contract/delivery-target';
import type { MessageRef } from '../contract/messages';
import type { OutboundContent } from '../contract/surface';
import { toPlainText } from '../format/plain';
import { isThread, takesThreads, type ChannelDirectory, type ChannelInfo } from './directory';
import { classifyDiscordError } from './errors';
import { threadName } from './inbound';
import { classified, type DiscordOutbound } from './outbound';
import type { DiscordRest } from './rest';
import { badTarget, discordThread } from './thread';
import type { ThreadOpener } from './threads';

/** Discord channel types (API v10) a delivery cannot start a conversation in, by what the operator calls them. */
const UNFIT_KINDS: Record<number, string> = { 1: 'direct message', 2: 'voice channel', 3: 'group DM', 4: 'category', 13: 'stage channel', 14: 'server directory', 15: 'forum channel', 16: 'media channel' };

export interface StarterDeps {
  rest: DiscordRest;
  directory: ChannelDirectory;
  threads: ThreadOpener;
  outbound: DiscordOutbound;
  logger: Logger;
}

export class ConversationStarter {
  constructor(private readonly o: StarterDeps) {}

  /** What is wrong with a target, judged from a known channel (undefined: fine, or not known yet). */
  problemOf(target: DeliveryTarget, channel = target.platform === 'discord' ? this.o.directory.get(target.channel) : undefined): string | undefined {
    if (target.platform !== 'discord') return `the Discord adapter cannot deliver to a ${target.platform} target`;
    if (!channel) return undefined;
    const { guild } = target;
    if (channel.guildId !== guild) return channel.guildId === undefined ? `channel ${channel.id} is not a channel of guild ${guild}` : `channel ${channel.id} is in guild ${channel.guildId}, not in guild ${guild}`;
    if (!isThread(channel.type) && !takesThreads(channel.type)) {
      return `channel ${channel.id} is a ${UNFIT_KINDS[channel.type] ?? `channel of type ${channel.type}`}; a delivery needs a text or announcement channel, or a thread`;
    }
    return undefined;
  }

  async start(target: DeliveryTarget, content: OutboundContent): Promise<MessageRef> {
    if (target.platform !== 'discord') throw badTarget(`the Discord adapter cannot deliver to a ${target.platform} target`);
    const { guild } = target;
    const channel = await this.channel(target.channel);
    const problem = this.problemOf(target, channel);
    if (problem) throw badTarget(problem);
    if (isThread(channel.type)) return this.o.outbound.postNew(discordThread(guild, channel.parentId ?? channel.id, channel.id), content);
    const first = await this.o.outbound.postNew(discordThread(guild, channel.id), content);
    const thread = discordThread(guild, channel.id, first.messageId);
    this.o.threads.plan(thread, { parent: channel.id, starter: first.messageId, name: threadName(toPlainText(content.text), 'Scheduled run'), onReply: false });
    await this.o.threads.open(thread).catch((err: unknown) => this.o.logger.warn({ channel: channel.id, err: classifyDiscordError(err).message }, 'discord: opening the thread of a scheduled run failed; trying again on its first reply'));
    return { thread, messageId: first.messageId };
  }

  private async channel(id: string): Promise<ChannelInfo> {
    const known = this.o.directory.get(id);
    if (known) return known;
    return this.o.directory.put(await classified(() => this.o.rest.getChannel(id), 'View Channel'));
  }
}
