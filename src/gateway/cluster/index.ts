/**
 * The gateway's part in a cluster (gateway.md §12). On PostgreSQL every gateway is an instance: it joins
 * (taking over what dead peers left), routes each event to its conversation's owner, forwards the operator's
 * stop and approval decisions there, and leaves on a clean stop; alone on SQLite nothing goes anywhere. Rate
 * budgets stay in each instance's memory: the owner is its chats' only writer, so per-chat pacing is exact,
 * while per-bot budgets are per instance (a shared one would put a database round trip before every send).
 */
import type { Logger } from 'pino';
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock } from '../../adapters/contract/clock';
import type { InboundHandler } from '../../adapters/contract/messages';
import type { GatewayConfig } from '../config';
import type { GatewayStore, Takeover } from '../store/types';
import { instanceIdOf } from './instance-id';
import type * as MembershipModule from './membership';
import type * as PgBusModule from './pg-bus';
import type * as RouterModule from './router';
import type { RequestHandler } from './router';

export interface InstanceHealth {
  id: string;
  /** Conversations this instance owns (alone: those it holds in memory). */
  owns: number;
  peers: { id: string; last_seen: number }[];
}

export interface ClusterDeps {
  config: GatewayConfig;
  store: GatewayStore;
  clock: Clock;
  logger: Logger;
  url(): string | null;
  adapterFor(platform: string): ChannelAdapter | undefined;
  handlerFor(adapter: ChannelAdapter): InboundHandler;
  /** How many conversations a lone instance holds. */
  held(): number;
  /** A conversation became this instance's from another: drop what is cached for it. */
  forget(key: string): Promise<void>;
  /** Finalise and offer Continue for conversations taken over from dead peers. */
  recover(t: Takeover): Promise<void>;
  /** This instance stalled past its lease and peers took its conversations: stop its running Tasks. */
  stopAll(reason: string): Promise<void>;
  requests: Record<string, RequestHandler>;
}

export interface GatewayCluster {
  readonly id: string;
  readonly shared: boolean;
  /** Registers; what this start must recover (undefined: everything, the gateway is alone). */
  join(): Promise<Takeover | undefined>;
  /** Starts taking letters and watching peers; call once the adapters run. */
  start(): Promise<void>;
  route(local: InboundHandler): InboundHandler;
  /** A shutdown begins: take no more letters (those sent meanwhile go to whoever takes this instance's place). */
  pause(): Promise<void>;
  /** Runs `local` here, or asks the live owner of conversation `key` to run `op` with `args`. */
  atOwner<T>(key: string | null | undefined, op: string, args: unknown, local: () => Promise<T>): Promise<T>;
  /** Claims conversation `key`: undefined when it is now this instance's, else the live instance that owns it. */
  ownerElsewhere(key: string): Promise<string | undefined>;
  /** The live peer that owns conversation `key`, if any (no claim is made). */
  ownedElsewhere(key: string | null | undefined): Promise<string | undefined>;
  /** Asks instance `to` to run `op`; rejects on timeout or when `to` stops. */
  ask(to: string, op: string, args: unknown, waitMs?: number): Promise<unknown>;
  livePeers(): string[];
  /** Live instances on the database, this one included (1 when alone). */
  size(): number;
  health(): InstanceHealth;
  leave(): Promise<void>;
}

export function createCluster(d: ClusterDeps): GatewayCluster {
  const id = instanceIdOf(d.config.cluster.instance_id);
  if (d.config.database_url === undefined) return alone(id, d);
  // Required here: a gateway alone on its database (the default) never loads the cluster's machinery.
  const { Membership } = require('./membership') as typeof MembershipModule;
  const { PgBus } = require('./pg-bus') as typeof PgBusModule;
  const { ClusterRouter } = require('./router') as typeof RouterModule;
  const membership = new Membership({
    store: d.store, id, leaseMs: d.config.cluster.lease_ms, clock: d.clock, logger: d.logger, url: d.url,
    onAcquired: d.forget,
    onDeclaredDead: () => d.stopAll('another gateway instance took this conversation over'),
    // Runs only once started, when `r` exists.
    onTakeover: async (t) => {
      r.peersGone(t.instances);
      await d.recover(t);
    },
  });
  const bus = new PgBus({ url: d.config.database_url, store: d.store, instanceId: id, logger: d.logger });
  const r = new ClusterRouter({ membership, bus, logger: d.logger, adapterFor: d.adapterFor, handlerFor: d.handlerFor, requests: d.requests });
  const ownedElsewhere = async (key: string | null | undefined) => (key ? membership.liveOwner(key) : undefined);
  let joined = false;
  return {
    id,
    shared: true,
    async join() {
      const t = await membership.join();
      joined = true;
      // A reply cut off in a conversation nobody owns (an index moved over from a lone gateway): this start finalises it.
      const orphans = (await d.store.listOpenDeliveries({ purpose: 'live' })).map((r) => r.chat);
      const owners = await d.store.conversationOwners(orphans);
      for (const key of new Set(orphans.filter((k) => !owners.has(k)))) if ((await membership.claim(key)) === id) t.keys.push(key);
      d.logger.info({ instance: id, peers: membership.livePeers().map((p) => p.instance_id), recovering: t.keys.length }, 'cluster: joined');
      return t;
    },
    async start() {
      await bus.start((l) => r.receive(l));
      membership.start();
    },
    route: (local) => r.wrap(local),
    pause: () => bus.stop(),
    async atOwner(key, op, args, local) {
      const owner = await ownedElsewhere(key);
      return owner ? ((await r.request(owner, op, args)) as Awaited<ReturnType<typeof local>>) : local();
    },
    async ownerElsewhere(key) {
      const owner = await membership.claim(key);
      return owner === id ? undefined : owner;
    },
    ownedElsewhere,
    ask: (to, op, args, waitMs) => r.request(to, op, args, waitMs),
    livePeers: () => membership.livePeers().map((p) => p.instance_id),
    size: () => membership.livePeers().length + 1,
    health: () => ({ id, owns: membership.owns, peers: membership.livePeers().map((p) => ({ id: p.instance_id, last_seen: p.heartbeat_at })) }),
    async leave() {
      await bus.stop();
      if (joined) await membership.leave();
    },
  };
}

function alone(id: string, d: ClusterDeps): GatewayCluster {
  return {
    id,
    shared: false,
    join: async () => undefined,
    start: async () => undefined,
    route: (local) => local,
    pause: async () => undefined,
    atOwner: (_key, _op, _args, local) => local(),
    ownerElsewhere: async () => undefined,
    ownedElsewhere: async () => undefined,
    ask: async (to) => {
      throw new Error(`no instance ${to}: this gateway is alone on its database`);
    },
    livePeers: () => [],
    size: () => 1,
    health: () => ({ id, owns: d.held(), peers: [] }),
    leave: async () => undefined,
  };
}
