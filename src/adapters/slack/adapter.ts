/**
 * SlackAdapter: the ChannelAdapter for Slack on Bolt 5. start() checks the bot token (auth.test, with a clear
 * message when Slack rejects it), builds the Bolt App (deferInitialization + init()) on the receiver of its
 * mode — HTTP on the gateway's listener, or a self-healing Socket Mode link — and resolves once events can
 * flow. Events are deduplicated by event_id (redeliveries are acked, not acted on), mapped, given display
 * names and handed to the gateway in order per thread. stop() ends the link and waits for events in flight.
 * Outbound calls (posts, updates, native streams, typing, reactions, ephemerals, the first message of a
 * scheduled delivery into a channel) and the error classifier live in their own files; every Web API client
 * has no SDK retries and a timeout (the governor schedules), and calls through plainFetch, not Node's fetch.
 */
import { App, type Logger as BoltLogger } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { plainFetch } from '../../core/http/plain-fetch';
import type { Express } from 'express';
import pino, { type Logger } from 'pino';
import { AdapterLifecycle } from '../contract/lifecycle';
import type { AdapterHealth, ChannelAdapter } from '../contract/adapter';
import { systemClock, type Clock } from '../contract/clock';
import type { DeliveryTarget } from '../contract/delivery-target';
import type { ErrorClassifier } from '../contract/errors';
import { InboundDispatcher } from '../contract/inbound-dispatcher';
import { SLACK_LIMITS, pacedLimits, type PlatformLimits } from '../contract/limits';
import type { ActionEvent, InboundHandler, InboundMessage, MessageRef } from '../contract/messages';
import type { ThreadPlace } from '../contract/place';
import type { RateOp, RateScope } from '../contract/rate';
import type { NativeStream, OutboundContent } from '../contract/surface';
import type { ThreadRef } from '../contract/thread-ref';
import { boltLogger } from './bolt-logger';
import { normalizeApiUrl, parseSlackConfig, type SlackAdapterConfig } from './config';
import { deliveryChannel, explainRefusal } from './deliver';
import { classifySlackError, slackCall } from './errors';
import { measureSlack } from './format';
import { slackHttpRoute, type SlackHttpRoute } from './http-receiver';
import { SlackListeners } from './listeners';
import { SlackOutbound } from './outbound';
import { slackPostScopes, slackRateScopes } from './rate';
import { SocketLink } from './socket-link';
import { SlackStreams } from './stream';
import { slackPlace, slackThread } from './thread';
import { DisplayNames, withDisplayNames } from './users';

export interface SlackAdapterDeps {
  logger?: Logger;
  clock?: Clock;
  /** Socket Mode: how late a pong may be before the SDK drops the link (its default 5 s). */
  clientPingTimeoutMs?: number;
}

/** Who the bot is, from auth.test. */
export interface SlackIdentity {
  team: string;
  teamName?: string;
  botUserId: string;
  botId?: string;
  user?: string;
}

export const API_TIMEOUT_MS = 10_000;

export class SlackAdapter implements ChannelAdapter {
  readonly platform = 'slack' as const;
  readonly limits: PlatformLimits;
  readonly classify: ErrorClassifier = (err) => classifySlackError(err);

  private readonly config: SlackAdapterConfig;
  private readonly logger: Logger;
  private readonly sdkLogger: BoltLogger;
  private readonly clock: Clock;
  private readonly clientOptions: WebClientOptions;
  private readonly client: WebClient;
  private readonly outbound: SlackOutbound;
  private readonly streams: SlackStreams;
  private readonly http?: SlackHttpRoute;
  private readonly deps: SlackAdapterDeps;
  private readonly life = new AdapterLifecycle('Slack');
  private link?: SocketLink;
  private listeners?: SlackListeners;
  private dispatcher?: InboundDispatcher;
  private identity?: SlackIdentity;

  constructor(config: SlackAdapterConfig, deps: SlackAdapterDeps = {}) {
    this.config = parseSlackConfig(config);
    this.deps = deps;
    this.logger = deps.logger ?? pino({ level: 'silent' });
    this.sdkLogger = boltLogger(this.logger, 'slack');
    this.clock = deps.clock ?? systemClock;
    this.clientOptions = { slackApiUrl: normalizeApiUrl(this.config.apiUrl), retryConfig: { retries: 0 }, timeout: API_TIMEOUT_MS, rejectRateLimitedCalls: true, logger: this.sdkLogger, fetch: plainFetch as typeof fetch };
    this.client = new WebClient(this.config.botToken, this.clientOptions);
    this.outbound = new SlackOutbound(() => this.client);
    this.streams = new SlackStreams(() => this.client, this.clock);
    this.limits = this.config.streaming ? pacedLimits(SLACK_LIMITS, this.config.streaming) : SLACK_LIMITS;
    if (this.config.mode === 'http') {
      this.http = slackHttpRoute({ signingSecret: this.config.signingSecret!, logger: this.sdkLogger, accepting: () => this.life.state === 'running' });
    }
  }

  /** The bot once started. */
  get me(): SlackIdentity | undefined {
    return this.identity;
  }

  /** `POST /slack/events` for the gateway's listener (HTTP mode only). */
  httpRoutes(): ((app: Express) => void) | undefined {
    return this.http?.routes;
  }

  start(handler: InboundHandler): Promise<void> {
    return this.life.start(
      () => this.connect(handler),
      () => (this.dispatcher = undefined),
    );
  }

  stop(): Promise<void> {
    return this.life.stop(() => this.disconnect());
  }

  health(): AdapterHealth {
    if (this.life.state !== 'running') return { state: 'failed', detail: `the adapter is ${this.life.state}` };
    const last = this.listeners?.lastEventAt;
    if (this.link) {
      const h = this.link.health();
      const lastEventAt = Math.max(h.lastEventAt ?? 0, last ?? 0) || undefined;
      return { ...h, ...(lastEventAt ? { lastEventAt } : {}) };
    }
    return { state: 'connected', ...(last ? { lastEventAt: last } : {}) };
  }

  // ---------------------------------------------------------------- lifecycle

  private async connect(handler: InboundHandler): Promise<void> {
    const me = await this.authTest();
    this.identity = me;
    const names = new DisplayNames(
      async (user) => (await slackCall('users.info', () => this.client.users.info({ user }))).user?.profile ?? undefined,
      this.clock,
      (err) => this.logError(err, 'users.info'),
    );
    this.dispatcher = new InboundDispatcher(withDisplayNames(handler, names), this.logger, 'slack');
    if (this.config.mode === 'socket') {
      this.link = new SocketLink({
        appToken: this.config.appToken!, apiUrl: normalizeApiUrl(this.config.apiUrl), clock: this.clock, logger: this.sdkLogger,
        silenceMs: this.config.socketSilenceMs, clientPingTimeoutMs: this.deps.clientPingTimeoutMs, onError: (err, what) => this.logError(err, what),
      });
    }
    const app = new App({
      token: this.config.botToken, botId: me.botId, botUserId: me.botUserId, tokenVerificationEnabled: false, deferInitialization: true,
      receiver: this.link ?? this.http!.receiver, logger: this.sdkLogger, clientOptions: this.clientOptions, ignoreSelf: true,
    });
    this.listeners = new SlackListeners({
      app, identity: me, config: this.config, clock: this.clock, dispatcher: this.dispatcher, streams: this.streams, outbound: this.outbound,
      botToken: this.config.botToken, logError: (err, what) => this.logError(err, what),
    });
    await app.init();
    if (this.link) await app.start();
    this.logger.info({ team: me.team, bot: me.user, mode: this.config.mode }, 'slack: connected');
  }

  /** auth.test: the token works, and who the bot is (team, bot user id for mentions and ignoring itself). */
  private async authTest(): Promise<SlackIdentity> {
    let r;
    try {
      r = await this.client.auth.test();
    } catch (err) {
      const e = classifySlackError(err, 'auth.test');
      if (e.classification.kind === 'surface' && e.classification.reason === 'auth') {
        throw new Error(`Slack rejected the bot token (${e.code}): check SLACK_BOT_TOKEN (the Bot User OAuth Token, xoxb-…)`, { cause: err });
      }
      throw new Error(`Slack auth.test failed: ${e.message}`, { cause: err });
    }
    if (!r.team_id || !r.user_id) throw new Error('Slack auth.test answered without a team or bot user id');
    return { team: r.team_id, botUserId: r.user_id, ...(r.bot_id ? { botId: r.bot_id } : {}), ...(r.user ? { user: r.user } : {}), ...(r.team ? { teamName: r.team } : {}) };
  }

  private async disconnect(): Promise<void> {
    if (this.link) await this.link.stop().catch((err: unknown) => this.logError(err, 'socket stop'));
    await this.dispatcher?.drain();
  }

  /** Problems only the operator can fix are errors; the rest warnings. */
  private logError(err: unknown, what: string): void {
    const e = classifySlackError(err);
    const level = e.classification.kind === 'surface' ? 'error' : 'warn';
    this.logger[level]({ err: e.message, what }, `slack: ${what} failed`);
  }

  place(thread: ThreadRef): ThreadPlace {
    return slackPlace(thread);
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

  /**
   * A new conversation in the target channel (a scheduled run): `content` at the channel's top level; the
   * thread rooted at it is the conversation, so the reply goes there and a reply in it continues the session.
   */
  async startConversation(target: DeliveryTarget, content: OutboundContent): Promise<MessageRef> {
    const where = deliveryChannel(target, this.identity);
    let posted: { ts: string; channel: string };
    try {
      posted = await this.outbound.postTopLevel(where.channel, content);
    } catch (err) {
      throw explainRefusal(classifySlackError(err, 'chat.postMessage'), where, this.identity);
    }
    return { thread: slackThread(where.team, posted.channel, posted.ts), messageId: posted.ts };
  }

  /** The first message of a delivery draws on the channel's post budget like any post there. */
  startConversationScopes(target: DeliveryTarget): RateScope[] {
    return target.platform === 'slack' ? slackPostScopes(target.team, target.channel) : [];
  }

  /** A target in another workspace than the bot's, known once connected (channel membership needs a call). */
  deliveryProblem(target: DeliveryTarget): string | undefined {
    if (!this.identity) return undefined;
    try {
      deliveryChannel(target, this.identity);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  typing(thread: ThreadRef): Promise<void> {
    return this.outbound.typing(thread);
  }

  react(ref: MessageRef, emoji: string): Promise<void> {
    return this.outbound.react(ref, emoji);
  }

  ephemeral(thread: ThreadRef, userId: string, text: string): Promise<void> {
    return this.outbound.ephemeral(thread, userId, text);
  }

  /** Assistant threads show a title: the session's. Elsewhere Slack shows none. */
  async setTitle(thread: ThreadRef, title: string): Promise<void> {
    if (this.listeners?.isAssistantThread(thread)) await this.outbound.setTitle(thread, title);
  }

  rateScopes(thread: ThreadRef, op: RateOp): RateScope[] {
    return slackRateScopes(thread, op);
  }

  measure(markdown: string): number {
    return measureSlack(markdown);
  }

  received(e: InboundMessage | ActionEvent): void {
    const team = e.user.team ?? (e.thread.platform === 'slack' ? e.thread.team : this.identity?.team);
    if (team) this.streams.noteRecipient(e.thread, e.user.id, team);
  }

  nativeStream(thread: ThreadRef, _isDM: boolean): NativeStream | undefined {
    if (!this.config.nativeStreaming) return undefined;
    return this.streams.streamFor(thread);
  }
}
