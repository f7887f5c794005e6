/**
 * TelegramAdapter: the ChannelAdapter for Telegram on grammY (no retry plugin: the gateway's governor
 * schedules retries). start() checks the token with getMe, registers the chat commands, then long-polls
 * (grammY confirms offsets) or sets the webhook; it resolves once updates can flow. A poll loop that ends on
 * its own is reported by `health()` and restarted. stop() ends polling (no getUpdates afterwards), closes
 * the webhook route and waits for events in flight; it is idempotent.
 */
import { AdapterLifecycle } from '../contract/lifecycle';
import type { Leadership, LeadershipFor } from '../contract/leadership';
import { Bot } from 'grammy';
import type { Express } from 'express';
import pino, { type Logger } from 'pino';
import type { AdapterHealth, ChannelAdapter } from '../contract/adapter';
import { systemClock, type Clock } from '../contract/clock';
import type { ErrorClassifier } from '../contract/errors';
import { InboundDispatcher } from '../contract/inbound-dispatcher';
import { TELEGRAM_LIMITS, pacedLimits, type PlatformLimits } from '../contract/limits';
import type { ThreadPlace } from '../contract/place';
import type { InboundHandler, MessageRef } from '../contract/messages';
import type { RateOp, RateScope } from '../contract/rate';
import type { NativeStream, OutboundContent } from '../contract/surface';
import type { ThreadRef } from '../contract/thread-ref';
import { botFileDownloader } from './attachments';
import { botIdOf, normalizeApiRoot, parseTelegramConfig, type TelegramAdapterConfig } from './config';
import { DraftStreams } from './draft';
import { classifyTelegramError } from './errors';
import { measureTelegram } from './format';
import { updateToInbound, type InboundIo, type UpdateLike } from './inbound';
import type { BotIdentity } from './mentions';
import { TelegramOutbound } from './outbound';
import { telegramRateScopes } from './rate';
import { telegramPlace } from './thread';
import { telegramWebhookRoutes } from './webhook';

export interface TelegramAdapterDeps {
  logger?: Logger;
  clock?: Clock;
  /** Wait before restarting a poll loop that ended on its own (default POLL_RESTART_MS). */
  pollRestartMs?: number;
  /** With several instances on one bot token, only the leader long-polls (Telegram allows one getUpdates per token). */
  leadership?: LeadershipFor;
}

/** The commands shown in Telegram's menu; the gateway parses them from the message text. */
export const TELEGRAM_COMMANDS = [
  { command: 'new', description: 'Start a fresh session in this chat' },
  { command: 'stop', description: 'Stop what I am doing' },
  { command: 'mode', description: 'How tool calls are approved: allow-all, deny-all, read-only, always-ask' },
  { command: 'status', description: "This chat's session, mode and state" },
  { command: 'schedules', description: "This agent's schedules and when each runs next" },
  { command: 'help', description: 'How to talk to me' },
] as const;

/** The only updates the gateway acts on; Telegram stops sending the rest. */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/** How long a poll loop that ended on its own waits before it starts again. */
export const POLL_RESTART_MS = 5_000;

export class TelegramAdapter implements ChannelAdapter {
  readonly platform = 'telegram' as const;
  readonly limits: PlatformLimits;
  readonly classify: ErrorClassifier = classifyTelegramError;

  private readonly config: TelegramAdapterConfig;
  private readonly logger: Logger;
  private readonly bot: Bot;
  private readonly botId: string;
  private readonly outbound: TelegramOutbound;
  private readonly drafts: DraftStreams;
  private readonly io: InboundIo;
  private readonly life = new AdapterLifecycle('Telegram');
  private identity?: BotIdentity;
  private dispatcher?: InboundDispatcher;
  private polling?: Promise<void>;
  private readonly leadershipFor?: LeadershipFor;
  private leader?: Leadership;
  /** Why long polling is down while it is being restarted. */
  private pollProblem?: string;
  private pollRestart?: NodeJS.Timeout;
  private lastEventAt?: number;
  private readonly clock: Clock;
  private readonly pollRestartMs: number;

  constructor(config: TelegramAdapterConfig, deps: TelegramAdapterDeps = {}) {
    this.config = parseTelegramConfig(config);
    this.leadershipFor = deps.leadership;
    const apiRoot = normalizeApiRoot(this.config.apiRoot);
    this.logger = deps.logger ?? pino({ level: 'silent' });
    this.botId = botIdOf(this.config.botToken);
    this.bot = new Bot(this.config.botToken, { client: { apiRoot, timeoutSeconds: 60 } });
    this.bot.use((ctx) => {
      this.receive(ctx.update);
    });
    this.bot.catch((err) => this.logger.error({ err: err.message }, 'telegram: update handling failed'));
    this.outbound = new TelegramOutbound(this.bot.api);
    this.clock = deps.clock ?? systemClock;
    this.pollRestartMs = deps.pollRestartMs ?? POLL_RESTART_MS;
    this.drafts = new DraftStreams(this.outbound, this.clock);
    this.io = {
      downloadFile: botFileDownloader((fileId) => this.bot.api.getFile(fileId), apiRoot, this.config.botToken),
      answerCallbackQuery: (id, answer) => this.bot.api.answerCallbackQuery(id, answer),
    };
    this.limits = this.config.streaming ? pacedLimits(TELEGRAM_LIMITS, this.config.streaming) : TELEGRAM_LIMITS;
  }

  /** The bot's @username once started. */
  get username(): string | undefined {
    return this.identity?.username;
  }

  /** The webhook route to mount on the gateway's listener (webhook mode only). */
  webhookRoutes(): ((app: Express) => void) | undefined {
    if (this.config.mode !== 'webhook') return undefined;
    return telegramWebhookRoutes({
      secret: this.config.webhookSecret!,
      accepting: () => this.dispatcher !== undefined && this.life.state !== 'stopped',
      onUpdate: (u) => this.receive(u),
      logger: this.logger,
    });
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

  // ---------------------------------------------------------------- lifecycle

  private async connect(handler: InboundHandler): Promise<void> {
    const me = await this.getMe();
    this.bot.botInfo = me;
    this.identity = { id: me.id, username: me.username };
    this.dispatcher = new InboundDispatcher(handler, this.logger, 'telegram');
    await this.registerCommands();
    if (this.config.mode === 'webhook') {
      try {
        await this.bot.api.setWebhook(this.config.webhookUrl!, { secret_token: this.config.webhookSecret, allowed_updates: [...ALLOWED_UPDATES] });
      } catch (err) {
        throw new Error(`Telegram refused the webhook ${this.config.webhookUrl}: ${classifyTelegramError(err).message}`, { cause: err });
      }
      this.logger.info({ bot: me.username, url: this.config.webhookUrl }, 'telegram: webhook set');
      return;
    }
    if (this.leadershipFor) {
      this.lead(this.leadershipFor(`telegram-poll:${me.id}`));
      return;
    }
    await this.startPolling();
    this.logger.info({ bot: me.username }, 'telegram: long polling');
  }

  /** Sends at once; polls only while this instance leads, and waits to lead again after losing it. */
  private lead(l: Leadership): void {
    this.leader = l;
    this.logger.info('telegram: sending; long polling once this instance leads (another instance may be polling)');
    const lost = () => {
      if (this.life.state === 'stopped') return;
      this.logger.warn('telegram: no longer the polling instance; waiting to lead again');
      void this.bot.stop().catch(() => undefined).then(() => this.lead(l));
    };
    l.acquire(lost).then(
      () => {
        if (this.life.state === 'stopped') return;
        this.startPolling().then(() => this.logger.info('telegram: long polling (this instance leads)'), (err: unknown) => this.onPollingStopped((err as Error).message));
      },
      (err: unknown) => this.logger.error({ err }, 'telegram: waiting to lead failed'),
    );
  }

  private async getMe() {
    try {
      return await this.bot.api.getMe();
    } catch (err) {
      const e = classifyTelegramError(err);
      if (e.code === 401 || e.code === 404) {
        throw new Error(`Telegram rejected the bot token (${e.message.replace(/^getMe: /, '')}): check TELEGRAM_BOT_TOKEN`, { cause: err });
      }
      throw new Error(`Telegram getMe failed: ${e.message}`, { cause: err });
    }
  }

  private async registerCommands(): Promise<void> {
    try {
      await this.bot.api.setMyCommands(TELEGRAM_COMMANDS.map((c) => ({ ...c })));
    } catch (err) {
      // the menu is a convenience: the commands work typed out, so a failure here only warns
      this.logger.warn({ err: classifyTelegramError(err).message }, 'telegram: setMyCommands failed');
    }
  }

  private startPolling(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let started = false;
      this.polling = this.bot
        .start({
          allowed_updates: [...ALLOWED_UPDATES],
          onStart: () => {
            started = true;
            this.pollProblem = undefined;
            resolve();
          },
        })
        .catch((err: unknown) => {
          const why = classifyTelegramError(err).message;
          if (!started) return reject(new Error(`Telegram long polling failed to start: ${why}`, { cause: err }));
          this.onPollingStopped(why);
        });
    });
  }

  /** The poll loop ended on its own (e.g. another process polls the same token): say so and start it again. */
  private onPollingStopped(why: string): void {
    if (this.life.state === 'stopped') return;
    this.pollProblem = `long polling stopped: ${why}; restarting`;
    this.logger.error({ err: why, restartInMs: this.pollRestartMs }, 'telegram: long polling stopped with an error; restarting it');
    this.pollRestart = setTimeout(() => {
      this.pollRestart = undefined;
      if (this.life.state === 'stopped') return;
      this.startPolling().catch((err: unknown) => this.onPollingStopped((err as Error).message));
    }, this.pollRestartMs);
    this.pollRestart.unref();
  }

  health(): AdapterHealth {
    const lastEventAt = this.lastEventAt;
    if (this.life.state !== 'running') return { state: 'failed', detail: `the adapter is ${this.life.state}` };
    if (this.pollProblem) return { state: 'reconnecting', detail: this.pollProblem, ...(lastEventAt ? { lastEventAt } : {}) };
    return { state: 'connected', ...(lastEventAt ? { lastEventAt } : {}) };
  }

  private async disconnect(): Promise<void> {
    if (this.pollRestart) clearTimeout(this.pollRestart);
    await this.leader?.release().catch(() => undefined);
    if (this.polling) {
      try {
        await this.bot.stop();
      } catch (err) {
        this.logger.warn({ err: classifyTelegramError(err).message }, 'telegram: confirming the last update offset failed');
      }
      await this.polling;
    }
    await this.dispatcher?.drain();
  }

  /** One update from polling or the webhook: mapped and handed to the gateway (never blocks the source). */
  private receive(update: UpdateLike): void {
    const dispatcher = this.dispatcher;
    const me = this.identity;
    if (!dispatcher || !me || this.life.state === 'stopped') return;
    this.lastEventAt = this.clock.now();
    let event;
    try {
      event = updateToInbound(update, me, this.io);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, update_id: update.update_id }, 'telegram: unreadable update');
      return;
    }
    if (event) dispatcher.deliver(event);
  }

  place(thread: ThreadRef): ThreadPlace {
    return telegramPlace(thread);
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

  rateScopes(thread: ThreadRef, op: RateOp): RateScope[] {
    return telegramRateScopes(this.botId, thread, op);
  }

  measure(markdown: string): number {
    return measureTelegram(markdown);
  }

  nativeStream(thread: ThreadRef, isDM: boolean): NativeStream | undefined {
    if (!this.config.draftStreaming || !isDM) return undefined;
    return this.drafts.streamFor(thread);
  }
}
