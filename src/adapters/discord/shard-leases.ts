/**
 * Which shards this instance connects when several share the bot: one leadership per shard, and at most a
 * fair share held, ceil(shards / live instances), so they spread. The instance contends for every shard it
 * holds none of while under its share (the first lock free wins, in an order rotated per instance), stops
 * contending at its share, and gives back its last shards when more instances join. A shard whose lock is
 * lost (its connection dropped) is contended for again at once; one whose connection failed, after retryMs.
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../contract/clock';
import type { Leadership, LeadershipFor } from '../contract/leadership';

export interface ShardLeasesDeps {
  count: number;
  leadership: LeadershipFor;
  /** The leadership name of shard `i`. */
  name(i: number): string;
  /** How many gateway instances are live, this one included; absent: contend for every shard. */
  liveInstances?: () => number;
  clock: Clock;
  logger: Logger;
  /** How often the share is recomputed and lost shards contended for again. */
  checkMs: number;
  /** How long a shard whose connection failed waits before this instance contends for it again. */
  retryMs: number;
  /** Where this instance starts its order (default random, so two instances starting together differ). */
  offset?: number;
  /** Connects shard `i` once it leads it; rejects when the connection cannot be made. */
  open(i: number): Promise<void>;
  /** Disconnects shard `i`. */
  close(i: number): Promise<void>;
}

type Phase = 'idle' | 'waiting' | 'held';

interface Lease {
  phase: Phase;
  lead?: Leadership;
}

export class ShardLeases {
  /** Why a shard this instance led could not be connected, until it contends for it again or holds its share. */
  readonly failures = new Map<number, { detail: string; retryAt: number }>();
  private readonly leases: Lease[];
  private readonly order: number[];
  private timer?: TimerHandle;
  private stopped = false;

  constructor(private readonly d: ShardLeasesDeps) {
    this.leases = Array.from({ length: d.count }, () => ({ phase: 'idle' as Phase }));
    const offset = d.offset ?? Math.floor(Math.random() * d.count);
    this.order = Array.from({ length: d.count }, (_, k) => (offset + k) % d.count);
  }

  /** The shards this instance leads, ascending. */
  held(): number[] {
    return this.leases.flatMap((l, i) => (l.phase === 'held' ? [i] : []));
  }

  start(): void {
    this.check();
  }

  /** This instance's fair share of the shards now. */
  share(): number {
    const live = Math.max(1, Math.floor(this.d.liveInstances?.() ?? 1));
    return this.d.liveInstances ? Math.ceil(this.d.count / live) : this.d.count;
  }

  /** Recomputes the share: contends while under it, stops contending at it, gives shards back over it. */
  private check(): void {
    if (this.stopped) return;
    const share = this.share();
    const held = this.order.filter((i) => this.leases[i].phase === 'held');
    if (held.length >= share) this.failures.clear();
    for (const i of held.slice(share).reverse()) {
      this.d.logger.info({ shard: i, share }, 'discord: more instances share the bot; giving this shard back');
      void this.giveUp(i);
    }
    for (const i of this.order) {
      const l = this.leases[i];
      const waitingOut = (this.failures.get(i)?.retryAt ?? 0) > this.d.clock.now();
      if (held.length < share && l.phase === 'idle' && !waitingOut) this.contend(i);
      else if (held.length >= share && l.phase === 'waiting') void this.giveUp(i);
    }
    this.timer = this.d.clock.setTimeout(() => this.check(), this.d.checkMs);
  }

  private contend(i: number): void {
    const lease = this.leases[i];
    const lead = this.d.leadership(this.d.name(i));
    this.failures.delete(i);
    lease.phase = 'waiting';
    lease.lead = lead;
    const current = () => lease.lead === lead && !this.stopped;
    lead.acquire(() => {
      if (!current()) return;
      this.d.logger.warn({ shard: i }, 'discord: no longer leading this shard (its lock connection dropped); disconnecting it and waiting to lead again');
      void this.giveUp(i).then(() => {
        if (!this.stopped && lease.phase === 'idle' && this.held().length < this.share()) this.contend(i);
      });
    }).then(
      () => {
        if (!current()) return void lead.release().catch(() => undefined);
        if (this.held().length >= this.share()) return void this.giveUp(i);
        lease.phase = 'held';
        this.d.logger.info({ shard: i }, 'discord: this instance leads the shard; connecting it');
        this.d.open(i).catch((err: unknown) => {
          if (!current()) return;
          const why = (err as Error).message;
          this.d.logger.error({ shard: i, err: why, retryInMs: this.d.retryMs }, 'discord: connecting the shard failed; letting it go and trying again later');
          this.failures.set(i, { detail: why, retryAt: this.d.clock.now() + this.d.retryMs });
          void this.giveUp(i);
        });
      },
      () => undefined,
    );
  }

  /** Stops leading (or waiting to lead) shard `i` and disconnects it if connected. */
  private async giveUp(i: number): Promise<void> {
    const lease = this.leases[i];
    const { lead, phase } = lease;
    lease.phase = 'idle';
    lease.lead = undefined;
    if (phase === 'held') await this.d.close(i).catch(() => undefined);
    await lead?.release().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.d.clock.clearTimeout(this.timer);
    await Promise.all(this.leases.map((_, i) => this.giveUp(i)));
  }
}
