/**
 * DiscordAdapter: the ChannelAdapter for Discord on @discordjs/ws and @discordjs/rest. Alone, start()
 * connects every shard, registers the slash commands where they changed and resolves once events flow (a
 * bad token or a refused privileged intent rejects it with what to fix). Given `leadership` (instances
 * sharing the bot), start() checks the token over REST and resolves: it sends at once and connects only
 * the shards it leads (shard-leases.ts), the holder of shard 0 registering the commands. stop() is final
 * and idempotent.
 */
import type { REST } from '@discordjs/rest';
import pino, { type Logger } from 'pino';
import { AdapterLifecycle } from '../contract/lifecycle';
import type { AdapterHealth, ChannelAdapter } from '../contract/adapter';
import { systemClock, type Clock } from '../contract/clock';
import type { LeadershipFor } from '../contract/leadership';
import type { ErrorClassifier } from '../contract/errors';
import { InboundDispatcher, type InboundEvent } from '../contract/inbound-dispatcher';
import { DISCORD_LIMITS, pacedLimits, type PlatformLimits } from '../contract/limits';
import type { InboundHandler, MessageRef } from '../contract/messages';
import type { ThreadPlace } from '../contract/place';
import type { RateOp, RateScope } from '../contract/rate';
import type { DeliveryTarget } from '../contract/delivery-target';
import type { OutboundContent } from '../contract/surface';
import type { ThreadRef } from '../contract/thread-ref';
import { AttachmentLimits } from './attachments';
import { createRest } from './client';
import { syncCommands } from './commands';
import { botIdOfToken, parseDiscordConfig, type DiscordAdapterConfig } from './config';
import { DeferredReplies } from './deferred-replies';
import { ChannelDirectory } from './directory';
import { classifyDiscordError } from './errors';
import { measureDiscord } from './format';
import { ConversationStarter } from './conversations';
import { ConnectionHealth, sharedHealth } from './health';
import { InboundFlow } from './inbound-flow';
import { InteractionDesk } from './interactions';
import { inviteUrl } from './invite';
import { loginError } from './login';
import { DiscordOutbound } from './outbound';
import { routePacket } from './packets';
import { RateBook } from './rate';
import { DiscordRest } from './rest';
import { ShardLeases } from './shard-leases';
import { ShardLink } from './shard-link';
import { asDiscordRef, channelOf, discordPlace, discordThread } from './thread';
import { ThreadOpener } from './threads';

export interface DiscordAdapterDeps {
  logger?: Logger;
  clock?: Clock;
  /** How long an unclaimed `/ask` reply waits before it is removed (default 3 s). */
  settleMs?: number;
  /** A click not answered by the gateway after this long is acknowledged anyway (default 2 s of Discord's 3). */
  ackSafetyMs?: number;
  /** Longest wait for READY after login (default 30 s). */
  readyTimeoutMs?: number;
  /** Several instances on one bot: each connects only the shards it leads (`discord-shard:<app>:<i>`). */
  leadership?: LeadershipFor;
  /** How many instances are live, this one included: each leads at most its share of the shards. */
  liveInstances?: () => number;
  /** How often an instance sharing the bot recomputes its share (default 2 s). */
  shardCheckMs?: number;
  /** How long a shard that failed to connect waits before it is tried again (default 30 s). */
  shardRetryMs?: number;
  /** Where this instance starts trying shards (default random). */
  shardOffset?: number;
}

export class DiscordAdapter implements ChannelAdapter {
  readonly platform = 'discord' as const;
  readonly limits: PlatformLimits;
  readonly classify: ErrorClassifier = classifyDiscordError;

  private readonly config: DiscordAdapterConfig;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly restClient: REST;
  private readonly rest: DiscordRest;
  private readonly shardCount: number;
  /** Alone: the one link with every shard (a fresh one per start attempt). */
  private lone?: ShardLink;
  /** Sharing the bot: the link of each shard this instance leads. */
  private readonly links = new Map<number, ShardLink>();
  private leases?: ShardLeases;
  private readonly book = new RateBook();
  private readonly directory: ChannelDirectory;
  private readonly replies: DeferredReplies;
  private readonly outbound: DiscordOutbound;
  private readonly starter: ConversationStarter;
  private readonly desk: InteractionDesk;
  private readonly flow: InboundFlow;
  private readonly connection: ConnectionHealth;
  private botId: string;
  private appId: string;
  private readonly life = new AdapterLifecycle('Discord');
  private dispatcher?: InboundDispatcher;

  constructor(config: DiscordAdapterConfig, private readonly deps: DiscordAdapterDeps = {}) {
    this.config = parseDiscordConfig(config);
    this.logger = deps.logger ?? pino({ level: 'silent' });
    this.clock = deps.clock ?? systemClock;
    this.limits = this.config.streaming ? pacedLimits(DISCORD_LIMITS, this.config.streaming) : DISCORD_LIMITS;
    this.botId = botIdOfToken(this.config.botToken);
    this.appId = this.botId;
    this.shardCount = this.config.shardCount ?? 1;
    this.restClient = createRest(this.config, this.book);
    this.rest = new DiscordRest(() => this.restClient);
    this.directory = new ChannelDirectory((id) => this.rest.getChannel(id));
    this.replies = new DeferredReplies(this.clock);
    this.connection = new ConnectionHealth(() => this.clock.now());
    const threads = new ThreadOpener({ rest: this.rest, directory: this.directory, logger: this.logger });
    this.outbound = new DiscordOutbound({ rest: this.rest, appId: () => this.appId, threads, replies: this.replies, logger: this.logger });
    this.starter = new ConversationStarter({ rest: this.rest, directory: this.directory, threads, outbound: this.outbound, logger: this.logger });
    const limits = new AttachmentLimits();
    const deliver = (e: InboundEvent, after?: () => void) => this.deliver(e, after);
    this.desk = new InteractionDesk({
      rest: this.rest, clock: this.clock, logger: this.logger, appId: () => this.appId, replies: this.replies, threads, directory: this.directory, limits, deliver,
      settleMs: deps.settleMs ?? 3_000, ackSafetyMs: deps.ackSafetyMs ?? 2_000,
    });
    this.flow = new InboundFlow({ directory: this.directory, threads, limits, botId: () => this.botId, deliver, logger: this.logger });
  }

  start(handler: InboundHandler): Promise<void> {
    return this.life.start(
      () => this.connect(handler),
      async (err) => {
        this.connection.failed((err as Error).message);
        await this.lone?.close();
      },
    );
  }

  stop(): Promise<void> {
    return this.life.stop(() => this.disconnect());
  }

  health(): AdapterHealth {
    if (this.lone) return this.lone.health();
    if (!this.leases || this.life.state !== 'running') return this.connection.snapshot();
    const shards = this.leases.held().map((shard) => ({ shard, health: this.links.get(shard)?.health() ?? { state: 'reconnecting' as const, detail: 'connecting' } }));
    const failed = [...this.leases.failures].map(([shard, f]) => ({ shard, health: { state: 'failed' as const, detail: f.detail } }));
    return sharedHealth(this.shardCount, [...shards, ...failed]);
  }

  place(thread: ThreadRef): ThreadPlace {
    return discordPlace(thread);
  }

  // ---------------------------------------------------------------- lifecycle

  private async connect(handler: InboundHandler): Promise<void> {
    this.dispatcher = new InboundDispatcher(this.flow.handlerFor(handler), this.logger, 'discord');
    if (this.deps.leadership) return this.share(this.deps.leadership);
    this.lone = this.link(Array.from({ length: this.shardCount }, (_, i) => i), this.connection);
    await this.lone.open();
    this.botId = this.lone.botId ?? this.botId;
    this.appId = this.lone.appId ?? this.botId;
    await syncCommands(this.rest, this.appId, this.config.guildIds, this.logger);
    this.connection.connected();
    this.logger.info({ bot: this.lone.botName, guilds: this.lone.guilds, invite: inviteUrl(this.appId) }, 'discord: connected');
  }

  /** Sends at once; connects the shards this instance leads as it comes to lead them. */
  private async share(leadership: LeadershipFor): Promise<void> {
    try {
      const app = await this.rest.currentApplication();
      this.appId = app.id;
      this.botId = app.botId ?? this.botId;
    } catch (err) {
      throw loginError(err);
    }
    this.leases = new ShardLeases({
      count: this.shardCount, leadership, name: (i) => `discord-shard:${this.appId}:${i}`, clock: this.clock, logger: this.logger,
      checkMs: this.deps.shardCheckMs ?? 2_000, retryMs: this.deps.shardRetryMs ?? 30_000,
      ...(this.deps.liveInstances ? { liveInstances: this.deps.liveInstances } : {}),
      ...(this.deps.shardOffset !== undefined ? { offset: this.deps.shardOffset } : {}),
      open: (i) => this.openShard(i),
      close: (i) => this.closeShard(i),
    });
    this.connection.connected();
    this.leases.start();
    this.logger.info({ shards: this.shardCount, invite: inviteUrl(this.appId) }, 'discord: sending; connecting the shards this instance leads (other instances may hold them)');
  }

  private async openShard(i: number): Promise<void> {
    const link = this.link([i], new ConnectionHealth(() => this.clock.now()));
    this.links.set(i, link);
    try {
      await link.open();
    } catch (err) {
      if (this.links.get(i) === link) this.links.delete(i);
      await link.close();
      throw err;
    }
    if (this.links.get(i) !== link) return;
    this.logger.info({ shard: i, of: this.shardCount, guilds: link.guilds }, 'discord: shard connected (this instance leads it)');
    if (i === 0) await syncCommands(this.rest, this.appId, this.config.guildIds, this.logger);
  }

  private async closeShard(i: number): Promise<void> {
    const link = this.links.get(i);
    this.links.delete(i);
    await link?.close();
  }

  private link(shards: number[], health: ConnectionHealth): ShardLink {
    return new ShardLink(shards, {
      config: this.config, rest: this.restClient, clock: this.clock, logger: this.logger, health,
      readyTimeoutMs: this.deps.readyTimeoutMs ?? 30_000,
      onPacket: (packet) => {
        if (this.life.state === 'stopped') return;
        routePacket(packet.t, packet.d, {
          directory: this.directory, botId: () => this.botId, logger: this.logger,
          onMessage: (m) => void this.flow.onMessage(m),
          onInteraction: (interaction) => void this.desk.onInteraction(interaction).catch((err: unknown) => this.logger.error({ err: classifyDiscordError(err).message }, 'discord: interaction handling failed')),
        });
      },
    });
  }

  private deliver(event: InboundEvent, afterHandled?: () => void): void {
    if (!this.dispatcher || this.life.state === 'stopped') return;
    if (afterHandled && event.kind === 'message') this.flow.afterHandled(event.message.eventId, afterHandled);
    this.dispatcher.deliver(event);
  }

  private async disconnect(): Promise<void> {
    this.connection.stopped();
    this.desk.close();
    await this.dispatcher?.drain();
    await this.leases?.stop();
    await this.lone?.close();
  }

  // ---------------------------------------------------------------- outbound

  post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    return this.outbound.post(thread, content);
  }

  edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    return this.outbound.edit(ref, content);
  }

  delete(ref: MessageRef): Promise<void> {
    return this.outbound.delete(ref);
  }

  typing(thread: ThreadRef): Promise<void> {
    return this.outbound.typing(thread);
  }

  react(ref: MessageRef, emoji: string): Promise<void> {
    return this.outbound.react(ref, emoji);
  }

  /** A scheduled run's first message in a channel and the thread it continues in (conversations.ts). */
  startConversation(target: DeliveryTarget, content: OutboundContent): Promise<MessageRef> {
    return this.starter.start(target, content);
  }

  /** A target whose channel the adapter has seen in another guild, or of a kind no delivery can use. */
  deliveryProblem(target: DeliveryTarget): string | undefined {
    return this.starter.problemOf(target);
  }

  /** The first message of a delivery draws on the channel's post budget like any post there. */
  startConversationScopes(target: DeliveryTarget): RateScope[] {
    return target.platform === 'discord' ? this.rateScopes(discordThread(target.guild, target.channel), 'post') : [];
  }

  rateScopes(thread: ThreadRef, op: RateOp): RateScope[] {
    return this.book.scopes(this.botId, channelOf(asDiscordRef(thread)), op);
  }

  measure(markdown: string): number {
    return measureDiscord(markdown);
  }
}
