/**
 * This instance's place among the gateway instances on one database: it renews its heartbeat every third
 * of the lease, knows its live peers, claims conversations (a claim it made stays trusted without a query
 * while its last renewal is younger than the lease, since no peer can have declared it dead before that),
 * and takes over the conversations of peers whose heartbeat lapsed, handing them to `onTakeover`.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../adapters/contract/clock';
import type { ClusterStore, InstanceRow, Takeover } from '../store/types';

const CLAIM_ATTEMPTS = 3;

export interface MembershipOptions {
  store: ClusterStore;
  id: string;
  leaseMs: number;
  clock: Clock;
  logger: Logger;
  url(): string | null;
  /** A dead peer's conversations became this instance's: finalise what it left and offer Continue. */
  onTakeover(t: Takeover): Promise<void>;
  /** A conversation this instance did not hold became its own: anything cached for it may be stale. */
  onAcquired(key: string): Promise<void>;
  /** Peers declared this instance dead (it stalled past its lease) and took its conversations: stop what runs in them. */
  onDeclaredDead?(): Promise<void>;
}

export class Membership {
  private readonly owned = new Set<string>();
  private renewedAt = -Infinity;
  private peers: InstanceRow[] = [];
  private timer: ReturnType<Clock['setTimeout']> | undefined;
  private ticking: Promise<void> | undefined;
  private readonly startedAt: number;
  private stopped = false;

  constructor(private readonly o: MembershipOptions) {
    this.startedAt = o.clock.now();
  }

  get id(): string {
    return this.o.id;
  }

  /**
   * Registers, then takes over what dead peers and this id's previous process left: the conversations a
   * start must recover (the caller does, once its adapters run). Heartbeats and sweeps start after.
   */
  async join(): Promise<Takeover> {
    await this.renew();
    const dead = await this.o.store.takeOverDead(this.o.id, this.aliveSince());
    const mine = await this.o.store.conversationsOwnedBy(this.o.id);
    for (const k of mine) this.owned.add(k);
    await this.refresh();
    return { instances: [...new Set([...dead.instances, this.o.id])], keys: mine };
  }

  start(): void {
    const every = Math.max(200, Math.floor(this.o.leaseMs / 3));
    const tick = () => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (!this.stopped) this.timer = this.o.clock.setTimeout(tick, every);
      });
    };
    this.timer = this.o.clock.setTimeout(tick, every);
  }

  /** Stops the heartbeat and leaves: its conversations are free at once (their replies were finalised by the shutdown). */
  async leave(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    await this.ticking;
    await this.o.store.leaveCluster(this.o.id);
  }

  /** Who runs this conversation: this instance (now its owner) or the live peer that owns it. */
  async claim(key: string): Promise<string> {
    if (this.owned.has(key) && this.o.clock.now() - this.renewedAt < this.o.leaseMs) return this.o.id;
    const owner = await this.claimRow(key);
    if (owner !== this.o.id) {
      this.owned.delete(key);
      return owner;
    }
    // Not held a moment ago (never, or lost to a takeover): whatever is cached for it may be stale.
    if (!this.owned.has(key)) {
      this.owned.add(key);
      await this.o.onAcquired(key);
    }
    return this.o.id;
  }

  /** A claim through a brief database hiccup: the event it routes was already acknowledged to the platform. */
  private async claimRow(key: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.o.store.claimConversation(key, this.o.id, this.aliveSince());
      } catch (err) {
        if (attempt >= CLAIM_ATTEMPTS) throw err;
        this.o.logger.warn({ err, key, attempt }, 'cluster: claiming a conversation failed; trying again');
        await new Promise((r) => setTimeout(r, 100 * 4 ** (attempt - 1)));
      }
    }
  }

  /** The live peer owning `key`, if any (no claim is made). */
  async liveOwner(key: string): Promise<string | undefined> {
    const owner = (await this.o.store.conversationOwners([key])).get(key);
    if (owner === undefined || owner === this.o.id) return undefined;
    return this.peers.some((p) => p.instance_id === owner) ? owner : undefined;
  }

  livePeers(): InstanceRow[] {
    return this.peers;
  }

  /** Conversations this instance holds: those it claimed, took over or had at its start. */
  get owns(): number {
    return this.owned.size;
  }

  private aliveSince(): number {
    return this.o.clock.now() - this.o.leaseMs;
  }

  private async renew(): Promise<void> {
    const before = this.o.clock.now();
    const r = await this.o.store.heartbeat(this.o.id, this.o.url(), this.startedAt, before);
    if (r === 'registered' && this.renewedAt !== -Infinity) {
      // Peers declared this instance dead and took its conversations: none of its claims hold any more.
      this.o.logger.error({ instance: this.o.id }, 'cluster: this instance missed its heartbeat lease and its conversations were taken over');
      this.owned.clear();
      void this.o.onDeclaredDead?.().catch((err: unknown) => this.o.logger.warn({ err }, 'cluster: stopping the taken-over Tasks failed'));
    }
    this.renewedAt = before;
  }

  private async refresh(): Promise<void> {
    const since = this.aliveSince();
    this.peers = (await this.o.store.listInstances()).filter((i) => i.instance_id !== this.o.id && i.heartbeat_at >= since);
  }

  private async tick(): Promise<void> {
    try {
      await this.renew();
      const t = await this.o.store.takeOverDead(this.o.id, this.aliveSince());
      await this.refresh();
      if (t.keys.length > 0 || t.instances.length > 0) {
        this.o.logger.warn({ instances: t.instances, conversations: t.keys.length }, 'cluster: took over the conversations of instances that stopped answering');
        for (const k of t.keys) this.owned.add(k);
        // Not awaited: finalising many replies is paced by the platforms, and the heartbeat must go on meanwhile.
        void this.o.onTakeover(t).catch((err: unknown) => this.o.logger.warn({ err }, 'cluster: finishing a takeover failed'));
      }
    } catch (err) {
      this.o.logger.warn({ err }, 'cluster: heartbeat failed (the database is unreachable?)');
    }
  }
}
