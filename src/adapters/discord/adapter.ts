/**
 * DiscordAdapter: the ChannelAdapter for Discord on discord.js 14. start() logs in (the websocket URL is
 * discovered from the REST root), waits for READY, registers the slash commands where they changed, and
 * resolves once events flow; a bad token or a refused privileged intent rejects it with what to fix.
 * Dispatches are mapped from their raw payloads (packets.ts) and handed on through the InboundDispatcher
 * (one conversation in order); a scheduled run opens its thread with `startConversation`. `health()`
 * follows the connection; stop() takes no more events, lets the handlers finish and closes the connection;
 * it is idempotent.
 */
import { Events, type Client } from 'discord.js';
import pino, { type Logger } from 'pino';
import type { AdapterHealth, ChannelAdapter } from '../contract/adapter';
import { systemClock, type Clock, type TimerHandle } from '../contract/clock';
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
import { createClient } from './client';
import { syncCommands } from './commands';
import { botIdOfToken, parseDiscordConfig, type DiscordAdapterConfig } from './config';
import { DeferredReplies } from './deferred-replies';
import { ChannelDirectory } from './directory';
import { classifyDiscordError } from './errors';
import { measureDiscord } from './format';
import { ConversationStarter } from './conversations';
import { ConnectionHealth } from './health';
import { InboundFlow } from './inbound-flow';
import { InteractionDesk } from './interactions';
import { inviteUrl } from './invite';
import { loginError } from './login';
import { DiscordOutbound } from './outbound';
import { routePacket } from './packets';
import { RateBook } from './rate';
import { DiscordRest } from './rest';
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
}

type State = 'idle' | 'starting' | 'running' | 'stopped';

export class DiscordAdapter implements ChannelAdapter {
  readonly platform = 'discord' as const;
  readonly limits: PlatformLimits;
  readonly classify: ErrorClassifier = classifyDiscordError;

  private readonly config: DiscordAdapterConfig;
  private readonly logger: Logger;
  private readonly clock: Clock;
  /** A discord.js client cannot log in again once destroyed: each start attempt gets a fresh one. */
  private client: Client;
  private readonly rest: DiscordRest;
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
  private state: State = 'idle';
  private dispatcher?: InboundDispatcher;
  private starting?: Promise<void>;
  private stopping?: Promise<void>;

  constructor(config: DiscordAdapterConfig, private readonly deps: DiscordAdapterDeps = {}) {
    this.config = parseDiscordConfig(config);
    this.logger = deps.logger ?? pino({ level: 'silent' });
    this.clock = deps.clock ?? systemClock;
    this.limits = this.config.streaming ? pacedLimits(DISCORD_LIMITS, this.config.streaming) : DISCORD_LIMITS;
    this.botId = botIdOfToken(this.config.botToken);
    this.appId = this.botId;
    this.client = createClient(this.config, this.book);
    this.rest = new DiscordRest(() => this.client.rest);
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
    if (this.state !== 'idle') return Promise.reject(new Error(`the Discord adapter cannot start: it is ${this.state}`));
    this.state = 'starting';
    this.starting = this.connect(handler).then(
      () => {
        if (this.state === 'starting') this.state = 'running';
      },
      async (err: unknown) => {
        this.connection.failed((err as Error).message);
        await this.client.destroy().catch(() => undefined);
        if (this.state === 'starting') {
          this.state = 'idle';
          this.client = createClient(this.config, this.book);
        }
        throw err;
      },
    );
    return this.starting;
  }

  stop(): Promise<void> {
    this.stopping ??= this.disconnect();
    return this.stopping;
  }

  health(): AdapterHealth {
    const ack = this.client.ws.shards.first()?.lastPingTimestamp;
    return this.connection.snapshot(ack !== undefined && ack > 0 ? ack : undefined);
  }

  place(thread: ThreadRef): ThreadPlace {
    return discordPlace(thread);
  }

  // ---------------------------------------------------------------- lifecycle

  private async connect(handler: InboundHandler): Promise<void> {
    this.dispatcher = new InboundDispatcher(this.flow.handlerFor(handler), this.logger, 'discord');
    this.watch();
    await this.login();
    this.botId = this.client.user?.id ?? this.botId;
    this.appId = this.client.application?.id ?? this.botId;
    await syncCommands(this.rest, this.appId, this.config.guildIds, this.logger);
    this.connection.connected();
    this.logger.info({ bot: this.client.user?.username, guilds: this.client.guilds.cache.size, invite: inviteUrl(this.appId) }, 'discord: connected');
  }

  private async login(): Promise<void> {
    let timer: TimerHandle | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      this.client.once(Events.ClientReady, () => resolve());
      timer = this.clock.setTimeout(() => reject(new Error('Discord did not send READY in time')), this.deps.readyTimeoutMs ?? 30_000);
    });
    try {
      await this.client.login(this.config.botToken);
      await ready;
    } catch (err) {
      throw loginError(err);
    } finally {
      if (timer) this.clock.clearTimeout(timer);
    }
  }

  /** Connection events → health; raw dispatches → the directory, messages and interactions. */
  private watch(): void {
    const c = this.client;
    c.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => {
      if (this.state === 'stopped') return;
      this.connection.event();
      routePacket(packet.t, packet.d, {
        directory: this.directory, botId: () => this.botId, logger: this.logger,
        onMessage: (m) => void this.flow.onMessage(m),
        onInteraction: (i) => void this.desk.onInteraction(i).catch((err: unknown) => this.logger.error({ err: classifyDiscordError(err).message }, 'discord: interaction handling failed')),
      });
    });
    c.on(Events.ShardReconnecting, () => this.connection.reconnecting('the gateway connection closed or stopped answering heartbeats; resuming'));
    c.on(Events.ShardResume, () => this.connection.connected());
    c.on(Events.ShardReady, () => this.connection.connected());
    c.on(Events.ShardDisconnect, (e: { code: number }) => {
      const why = loginError(e.code).message;
      this.connection.failed(why);
      if (this.state !== 'stopped') this.logger.error({ code: e.code }, `discord: ${why}`);
    });
    c.on(Events.ShardError, (err: Error) => this.logger.warn({ err: err.message }, 'discord: gateway connection error'));
    c.on(Events.Error, (err: Error) => this.logger.error({ err: err.message }, 'discord: client error'));
  }

  private deliver(event: InboundEvent, afterHandled?: () => void): void {
    if (!this.dispatcher || this.state === 'stopped') return;
    if (afterHandled && event.kind === 'message') this.flow.afterHandled(event.message.eventId, afterHandled);
    this.dispatcher.deliver(event);
  }

  private async disconnect(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.state = 'stopped';
    this.connection.stopped();
    this.desk.close();
    await this.dispatcher?.drain();
    await this.client.destroy();
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
