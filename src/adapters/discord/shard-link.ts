/**
 * ShardLink: the gateway connections (@discordjs/ws shards) for some shards of the bot. open() fetches the
 * websocket URL from the REST root, connects each shard and resolves on READY from all, or rejects with what
 * to fix; connection events feed a ConnectionHealth and raw dispatches go to `onPacket` until close(). READY
 * names the bot, its application and its guilds. The link holds its shards itself (not through the
 * package's manager, which forgets a shard it was asked to destroy between reconnects), so close() reaches
 * every one. Each link is opened once.
 */
import type { REST } from '@discordjs/rest';
import { SimpleContextFetchingStrategy, WebSocketShard, WebSocketShardEvents, managerToFetchingStrategyOptions, type WebSocketManager } from '@discordjs/ws';
import type { Logger } from 'pino';
import type { AdapterHealth } from '../contract/adapter';
import type { Clock, TimerHandle } from '../contract/clock';
import { createGateway } from './client';
import type { DiscordAdapterConfig } from './config';
import type { ConnectionHealth } from './health';
import { loginError } from './login';

export interface ShardLinkDeps {
  config: DiscordAdapterConfig;
  rest: REST;
  clock: Clock;
  logger: Logger;
  /** Where the connection's state goes. */
  health: ConnectionHealth;
  readyTimeoutMs: number;
  onPacket(packet: { t?: string | null; d?: unknown }): void;
}

/** Gateway close codes after which the connection is not tried again (a token, shard or intent to fix). */
const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);

interface ReadyData {
  user?: { id?: string; username?: string };
  application?: { id?: string };
  guilds?: { id?: string }[];
}

export class ShardLink {
  /** The options, gateway URL and identify throttle the shards share. */
  private readonly gateway: WebSocketManager;
  private readonly sockets: WebSocketShard[] = [];
  private closed = false;
  /** close() has destroyed the shards: one that connects after that is destroyed as it says hello. */
  private destroyed = false;
  private abort?: (err: Error) => void;
  private opening?: Promise<void>;
  private connecting?: Promise<void>;
  private ready?: ReadyData;
  private readonly guildIds = new Set<string>();
  private lastAck?: number;

  constructor(readonly shards: number[], private readonly d: ShardLinkDeps) {
    this.gateway = createGateway(d.config, d.rest, shards, d.config.shardCount ?? 1);
  }

  get botId(): string | undefined {
    return this.ready?.user?.id;
  }

  get botName(): string | undefined {
    return this.ready?.user?.username;
  }

  get appId(): string | undefined {
    return this.ready?.application?.id;
  }

  get guilds(): number {
    return this.guildIds.size;
  }

  open(): Promise<void> {
    this.opening = this.login();
    return this.opening;
  }

  private async login(): Promise<void> {
    let timer: TimerHandle | undefined;
    const stopped = new Promise<never>((_, reject) => {
      this.abort = reject;
      timer = this.d.clock.setTimeout(() => reject(new Error('Discord did not send READY in time')), this.d.readyTimeoutMs);
    });
    stopped.catch(() => undefined);
    this.connecting = this.connect();
    try {
      await Promise.race([this.connecting, stopped]);
    } catch (err) {
      throw loginError(err);
    } finally {
      this.abort = undefined;
      if (timer) this.d.clock.clearTimeout(timer);
    }
  }

  private async connect(): Promise<void> {
    const info = await this.gateway.fetchGatewayInformation();
    if (info.session_start_limit.remaining < this.shards.length) {
      throw new Error(`Discord allows ${info.session_start_limit.remaining} more gateway sessions until ${new Date(Date.now() + info.session_start_limit.reset_after).toISOString()}, fewer than the ${this.shards.length} shards to connect`);
    }
    const options = await managerToFetchingStrategyOptions(this.gateway);
    if (this.closed) return;
    for (const id of this.shards) {
      const shard = new WebSocketShard(new SimpleContextFetchingStrategy(this.gateway, options), id);
      this.watch(shard, id);
      this.sockets.push(shard);
    }
    await Promise.all(this.sockets.map((s) => s.connect()));
  }

  /** Takes no more events and closes the connections; idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const stillOpening = this.abort !== undefined;
    this.abort?.(new Error('the connection was closed before READY'));
    // That rejection is the opener's to handle; it is not left unhandled while this waits.
    this.opening?.catch(() => undefined);
    // A shard destroyed while its socket is still opening leaves that socket open (the package closes only
    // open ones): so a close() during open() waits for the connect to settle, up to the READY timeout (a
    // gateway that never sends READY), and any shard that says hello after the destroy (one that was between
    // reconnects) is destroyed then.
    if (stillOpening && this.connecting) await this.settled(this.connecting);
    this.destroyed = true;
    await Promise.all(this.sockets.map((s) => s.destroy().catch(() => undefined)));
  }

  private async settled(p: Promise<void>): Promise<void> {
    let timer: TimerHandle | undefined;
    const late = new Promise<void>((resolve) => {
      timer = this.d.clock.setTimeout(resolve, this.d.readyTimeoutMs);
    });
    await Promise.race([p.catch(() => undefined), late]);
    if (timer) this.d.clock.clearTimeout(timer);
  }

  health(): AdapterHealth {
    return this.d.health.snapshot(this.lastAck);
  }

  /** A shard's connection events → health; its raw dispatches → `onPacket`. */
  private watch(shard: WebSocketShard, id: number): void {
    const h = this.d.health;
    shard.on(WebSocketShardEvents.Dispatch, ({ data }) => {
      if (this.closed) return;
      h.event();
      this.track(data.t, data.d);
      this.d.onPacket({ t: data.t, d: data.d });
    });
    shard.on(WebSocketShardEvents.Ready, ({ data }) => {
      this.ready = data as ReadyData;
      for (const guild of this.ready.guilds ?? []) if (guild.id) this.guildIds.add(guild.id);
      h.connected();
    });
    shard.on(WebSocketShardEvents.Resumed, () => h.connected());
    shard.on(WebSocketShardEvents.Hello, () => {
      if (this.destroyed) void shard.destroy().catch(() => undefined);
    });
    shard.on(WebSocketShardEvents.HeartbeatComplete, ({ ackAt }) => {
      this.lastAck = ackAt;
    });
    shard.on(WebSocketShardEvents.Closed, ({ code }) => {
      if (this.closed) return;
      if (!FATAL_CLOSE_CODES.has(code)) return h.reconnecting('the gateway connection closed or stopped answering heartbeats; resuming');
      const why = loginError(code).message;
      h.failed(why);
      this.d.logger.error({ code, shard: id }, `discord: ${why}`);
    });
    shard.on(WebSocketShardEvents.Error, ({ error }) => this.d.logger.warn({ err: error.message, shard: id }, 'discord: gateway connection error'));
  }

  /** The guilds the bot is in, for the connected log line. */
  private track(t: string, d: unknown): void {
    const id = (d as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    if (t === 'GUILD_CREATE') this.guildIds.add(id);
    else if (t === 'GUILD_DELETE' && (d as { unavailable?: boolean }).unavailable !== true) this.guildIds.delete(id);
  }
}
