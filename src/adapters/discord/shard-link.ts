/**
 * ShardLink: one discord.js gateway client for some shards of the bot. open() logs in (the websocket URL
 * is discovered from the REST root) and resolves on READY, or rejects with what to fix; its connection
 * events feed a ConnectionHealth and its raw dispatches go to `onPacket` until close(). A destroyed
 * discord.js client cannot log in again, so each link is opened once.
 */
import { Events, type Client } from 'discord.js';
import type { Logger } from 'pino';
import type { AdapterHealth } from '../contract/adapter';
import type { Clock, TimerHandle } from '../contract/clock';
import { createClient } from './client';
import type { DiscordAdapterConfig } from './config';
import type { ConnectionHealth } from './health';
import { loginError } from './login';
import type { RateBook } from './rate';

export interface ShardLinkDeps {
  config: DiscordAdapterConfig;
  book: RateBook;
  clock: Clock;
  logger: Logger;
  /** Where the connection's state goes. */
  health: ConnectionHealth;
  readyTimeoutMs: number;
  onPacket(packet: { t?: string | null; d?: unknown }): void;
}

export class ShardLink {
  readonly client: Client;
  private closed = false;
  private abort?: (err: Error) => void;
  private opening?: Promise<void>;

  constructor(readonly shards: number[], private readonly d: ShardLinkDeps) {
    this.client = createClient(d.config, d.book, shards, d.config.shardCount ?? 1);
    this.watch();
  }

  get botId(): string | undefined {
    return this.client.user?.id;
  }

  get appId(): string | undefined {
    return this.client.application?.id;
  }

  get guilds(): number {
    return this.client.guilds.cache.size;
  }

  open(): Promise<void> {
    this.opening = this.login();
    return this.opening;
  }

  private async login(): Promise<void> {
    let timer: TimerHandle | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      this.abort = reject;
      this.client.once(Events.ClientReady, () => resolve());
      timer = this.d.clock.setTimeout(() => reject(new Error('Discord did not send READY in time')), this.d.readyTimeoutMs);
    });
    ready.catch(() => undefined);
    try {
      await this.client.login(this.d.config.botToken);
      await ready;
    } catch (err) {
      throw loginError(err);
    } finally {
      this.abort = undefined;
      if (timer) this.d.clock.clearTimeout(timer);
    }
  }

  /** Takes no more events and closes the connection; idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort?.(new Error('the connection was closed before READY'));
    // discord.js destroys a client once: a destroy while login() waits for the gateway URL is spent before
    // the websocket exists, which then connects and reconnects for good. So the destroy waits for login.
    await this.opening?.catch(() => undefined);
    await this.client.destroy().catch(() => undefined);
  }

  health(): AdapterHealth {
    const ack = this.client.ws.shards.first()?.lastPingTimestamp;
    return this.d.health.snapshot(ack !== undefined && ack > 0 ? ack : undefined);
  }

  /** Connection events → health; raw dispatches → `onPacket`. */
  private watch(): void {
    const c = this.client;
    const h = this.d.health;
    c.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => {
      if (this.closed) return;
      h.event();
      this.d.onPacket(packet);
    });
    c.on(Events.ShardReconnecting, () => h.reconnecting('the gateway connection closed or stopped answering heartbeats; resuming'));
    c.on(Events.ShardResume, () => h.connected());
    c.on(Events.ShardReady, () => h.connected());
    c.on(Events.ShardDisconnect, (e: { code: number }) => {
      if (this.closed) return;
      const why = loginError(e.code).message;
      h.failed(why);
      this.d.logger.error({ code: e.code, shards: this.shards }, `discord: ${why}`);
    });
    c.on(Events.ShardError, (err: Error) => this.d.logger.warn({ err: err.message }, 'discord: gateway connection error'));
    c.on(Events.Error, (err: Error) => this.d.logger.error({ err: err.message }, 'discord: client error'));
  }
}
