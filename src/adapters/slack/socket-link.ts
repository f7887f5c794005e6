/**
 * Socket Mode as a Bolt Receiver that owns its connection's liveness. Each link is a SocketModeClient with
 * the SDK's own reconnect off: the SDK still drops a link whose pings go unanswered, and this class decides
 * what happens next. A link that closes, a `disconnect` message from Slack (refresh_requested, warning,
 * link_disabled) and a link that delivered nothing — no envelope, no hello — for `silenceMs` (the known
 * failure: open, answering pings, delivering nothing for hours) are all replaced by a fresh link
 * (apps.connections.open), opened before the old one is closed. Failures to reconnect back off up to 30 s;
 * a rejected app token gives up. `health()` says connected / reconnecting (and why) / failed.
 */
import type { App, Logger as BoltLogger, Receiver } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import type { AdapterHealth } from '../contract/adapter';
import type { Clock, TimerHandle } from '../contract/clock';
import { classifySlackError } from './errors';

export interface SocketLinkOptions {
  appToken: string;
  apiUrl: string;
  clock: Clock;
  logger: BoltLogger;
  /** Re-open a link that delivered nothing for this long (0 = never). */
  silenceMs: number;
  /** The SDK drops a link whose pong is this late (its default 5 s). */
  clientPingTimeoutMs?: number;
  serverPingTimeoutMs?: number;
  /** Errors while handing an envelope to Bolt. */
  onError(err: unknown, what: string): void;
}

export const RECONNECT_MAX_MS = 30_000;
const API_TIMEOUT_MS = 10_000;

interface SlackEventArgs {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

export class SocketLink implements Receiver {
  private app?: App;
  private current?: SocketModeClient;
  private state: 'idle' | 'connected' | 'reconnecting' | 'failed' | 'stopped' = 'idle';
  private problem?: string;
  private lastDelivery = 0;
  private failures = 0;
  private replacing?: Promise<void>;
  private watchdog?: TimerHandle;
  private retryTimer?: TimerHandle;

  constructor(private readonly o: SocketLinkOptions) {}

  init(app: App): void {
    this.app = app;
  }

  /** Opens the first link; rejects (naming the cause) when Slack refuses it. */
  async start(): Promise<void> {
    try {
      this.current = await this.open();
    } catch (err) {
      this.state = 'failed';
      const e = classifySlackError(err, 'apps.connections.open');
      const why = e.classification.kind === 'surface' && e.classification.reason === 'auth' ? ' (check SLACK_APP_TOKEN: an app-level token with connections:write)' : '';
      throw new Error(`Slack Socket Mode did not connect: ${e.message}${why}`, { cause: err });
    }
    this.connected();
    this.arm();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    if (this.watchdog) this.o.clock.clearTimeout(this.watchdog);
    if (this.retryTimer) this.o.clock.clearTimeout(this.retryTimer);
    await this.replacing?.catch(() => undefined);
    const c = this.current;
    this.current = undefined;
    if (c) await c.disconnect().catch(() => undefined);
  }

  health(): AdapterHealth {
    const lastEventAt = this.lastDelivery || undefined;
    const at = lastEventAt ? { lastEventAt } : {};
    if (this.state === 'connected') return { state: 'connected', ...at };
    if (this.state === 'reconnecting') return { state: 'reconnecting', ...(this.problem ? { detail: this.problem } : {}), ...at };
    return { state: 'failed', detail: this.problem ?? `the Socket Mode link is ${this.state}`, ...at };
  }

  // ------------------------------------------------------------------ links

  private async open(): Promise<SocketModeClient> {
    const client = new SocketModeClient({
      appToken: this.o.appToken,
      logger: this.o.logger,
      autoReconnectEnabled: false,
      clientPingTimeout: this.o.clientPingTimeoutMs ?? 5_000,
      serverPingTimeout: this.o.serverPingTimeoutMs ?? 30_000,
      clientOptions: { slackApiUrl: this.o.apiUrl, retryConfig: { retries: 0 }, timeout: API_TIMEOUT_MS, rejectRateLimitedCalls: true },
    });
    client.on('slack_event', (args: SlackEventArgs) => void this.onEnvelope(client, args));
    client.on('ws_message', (data: unknown) => this.onFrame(client, data));
    client.on('disconnected', () => this.onClosed(client));
    client.on('error', () => undefined);
    try {
      await client.start();
    } catch (err) {
      await client.disconnect().catch(() => undefined);
      throw err;
    }
    return client;
  }

  private connected(): void {
    this.state = 'connected';
    this.problem = undefined;
    this.failures = 0;
    this.lastDelivery = this.o.clock.now();
  }

  /** Opens a new link, then retires the old one; on failure tries again with backoff. */
  private replace(why: string): void {
    if (this.state === 'stopped' || this.state === 'failed' || this.replacing) return;
    if (this.retryTimer) this.o.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.state = 'reconnecting';
    this.problem = why;
    this.replacing = this.open().then(
      (fresh) => {
        this.replacing = undefined;
        if (this.state === 'stopped') return void fresh.disconnect().catch(() => undefined);
        const old = this.current;
        this.current = fresh;
        this.connected();
        this.arm();
        if (old) void old.disconnect().catch(() => undefined);
      },
      (err: unknown) => {
        this.replacing = undefined;
        if (this.state === 'stopped') return;
        const e = classifySlackError(err, 'apps.connections.open');
        if (e.classification.kind === 'surface' && e.classification.reason === 'auth') {
          this.state = 'failed';
          this.problem = `Slack refused the app token: ${e.message}`;
          this.o.onError(e, 'socket reconnect');
          return;
        }
        this.failures++;
        this.problem = `${why}; reconnecting failed (${e.message})`;
        const wait = Math.min(RECONNECT_MAX_MS, 1_000 * 2 ** (this.failures - 1));
        this.retryTimer = this.o.clock.setTimeout(() => {
          this.retryTimer = undefined;
          this.replace(why);
        }, wait);
      },
    );
  }

  /** The silence watchdog: checks a few times per `silenceMs`. */
  private arm(): void {
    if (this.o.silenceMs <= 0) return;
    if (this.watchdog) this.o.clock.clearTimeout(this.watchdog);
    const every = Math.max(50, Math.min(30_000, Math.floor(this.o.silenceMs / 4)));
    this.watchdog = this.o.clock.setTimeout(() => {
      this.watchdog = undefined;
      if (this.state === 'stopped' || this.state === 'failed') return;
      const silent = this.o.clock.now() - this.lastDelivery;
      if (this.state === 'connected' && silent >= this.o.silenceMs) this.replace(`no events for ${Math.round(silent / 1000)} s; re-opening the link`);
      this.arm();
    }, every);
  }

  // ------------------------------------------------------------------ what the links say

  private async onEnvelope(client: SocketModeClient, args: SlackEventArgs): Promise<void> {
    this.lastDelivery = this.o.clock.now();
    if (!this.app || this.state === 'stopped') return;
    try {
      await this.app.processEvent({
        body: args.body,
        ack: async (response?: Record<string, unknown>) => {
          await args.ack(response);
        },
        ...(args.retry_num !== undefined ? { retryNum: args.retry_num } : {}),
        ...(args.retry_reason ? { retryReason: args.retry_reason } : {}),
      });
    } catch (err) {
      this.o.onError(err, client === this.current ? 'socket envelope' : 'socket envelope on a retired link');
    }
  }

  private onFrame(client: SocketModeClient, data: unknown): void {
    let frame: { type?: unknown; reason?: unknown };
    try {
      frame = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer));
    } catch {
      return;
    }
    if (frame.type === 'hello') this.lastDelivery = this.o.clock.now();
    if (frame.type === 'disconnect' && client === this.current) this.replace(`Slack asked to reconnect (${String(frame.reason ?? 'disconnect')})`);
  }

  private onClosed(client: SocketModeClient): void {
    if (client !== this.current || this.state === 'stopped') return;
    this.replace('the Socket Mode link closed');
  }
}
