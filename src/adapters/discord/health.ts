/**
 * The gateway connection as the adapter sees it, for `health()` (/readyz, `adapter_up`): connected;
 * reconnecting while @discordjs/ws resumes a connection that closed or went silent (missing heartbeat ACKs
 * close it); failed on a close Discord does not let it recover from (4004 bad token, 4014 a privileged
 * intent the app lacks, …) with what the operator must do. The last sign of life is the latest dispatch
 * or heartbeat ACK.
 */
import type { AdapterHealth } from '../contract/adapter';

export type ConnectionState = 'starting' | 'connected' | 'reconnecting' | 'failed' | 'stopped';

/** What a fatal gateway close code means for the operator. */
export function closeCodeDetail(code: number): string {
  switch (code) {
    case 4004: return 'Discord rejected the bot token (gateway close 4004): check DISCORD_BOT_TOKEN (or DISCORD_TOKEN)';
    case 4013: return 'Discord refused the intents the adapter asked for (gateway close 4013)';
    case 4014:
      return 'Discord refused the privileged Message Content intent (gateway close 4014): enable it in the Developer Portal (Bot → Privileged Gateway Intents) or set discord.message_content: false';
    case 4010:
    case 4011:
      return `Discord refused the shard setup (gateway close ${code}): the bot is in too many guilds for one connection`;
    case 4012: return 'Discord refused the gateway version (gateway close 4012)';
    default: return `the gateway connection closed for good (close ${code})`;
  }
}

export class ConnectionHealth {
  private state: ConnectionState = 'starting';
  private detail?: string;
  private lastEventAt?: number;

  constructor(private readonly now: () => number) {}

  /** A dispatch arrived. */
  event(): void {
    this.lastEventAt = this.now();
  }

  connected(): void {
    if (this.state === 'stopped') return;
    this.state = 'connected';
    this.detail = undefined;
  }

  reconnecting(detail: string): void {
    if (this.state === 'stopped' || this.state === 'failed') return;
    this.state = 'reconnecting';
    this.detail = detail;
  }

  failed(detail: string): void {
    if (this.state === 'stopped') return;
    this.state = 'failed';
    this.detail = detail;
  }

  stopped(): void {
    this.state = 'stopped';
    this.detail = 'the adapter is stopped';
  }

  /** The health now; `lastAckAt` is the shard's last heartbeat ACK (epoch ms), if any. */
  snapshot(lastAckAt?: number): AdapterHealth {
    const last = Math.max(this.lastEventAt ?? 0, lastAckAt ?? 0) || undefined;
    const state = this.state === 'connected' ? 'connected' : this.state === 'reconnecting' || this.state === 'starting' ? 'reconnecting' : 'failed';
    return { state, ...(this.detail ? { detail: this.detail } : {}), ...(last ? { lastEventAt: last } : {}) };
  }
}

const RANK: Record<AdapterHealth['state'], number> = { connected: 0, reconnecting: 1, failed: 2 };

/**
 * The health of an instance that shares the bot's `count` shards with others: that of the shards it holds
 * (the worst one decides) and of those it could not connect; holding none, it still sends over REST while
 * another instance receives the events, which is connected, said in the detail.
 */
export function sharedHealth(count: number, shards: Array<{ shard: number; health: AdapterHealth }>): AdapterHealth {
  const last = Math.max(0, ...shards.map((s) => s.health.lastEventAt ?? 0)) || undefined;
  const at = last ? { lastEventAt: last } : {};
  if (shards.length === 0) {
    return { state: 'connected', detail: `sending only: this instance holds none of the bot's ${count} shard(s); another instance receives the events, and this one connects a shard that is left free`, ...at };
  }
  const state = shards.map((s) => s.health.state).reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
  const detail = state === 'connected'
    ? `holds shard${shards.length > 1 ? 's' : ''} ${shards.map((s) => s.shard).join(', ')} of ${count}`
    : shards.filter((s) => s.health.state !== 'connected').map((s) => `shard ${s.shard}: ${s.health.detail ?? s.health.state}`).join('; ');
  return { state, detail, ...at };
}
