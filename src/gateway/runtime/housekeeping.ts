/**
 * Housekeeping: keeps the index from growing without bound. Once at start and then hourly it prunes
 * inbound dedupe ids older than two days (platforms redeliver within minutes to hours, so a two-day window
 * is ample) and reply-timeline events older than `retention.delivery_events_days`. A failed round is
 * logged and tried again next hour; it never stops the gateway.
 */
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { Logger } from '../logger';
import type { GatewayStore } from '../store';

export const INBOUND_DEDUPE_MS = 2 * 86_400_000;
export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

export interface HousekeepingOptions {
  store: Pick<GatewayStore, 'pruneInbound' | 'pruneDeliveryEvents'>;
  clock: Clock;
  logger: Logger;
  deliveryEventsDays: number;
}

export class Housekeeping {
  private timer?: TimerHandle;
  private round: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: HousekeepingOptions) {}

  start(): void {
    const tick = () => {
      this.round = this.prune().finally(() => {
        if (!this.stopped) this.timer = this.o.clock.setTimeout(tick, HOUSEKEEPING_INTERVAL_MS);
      });
    };
    tick();
  }

  /** One round; resolves to what it removed (errors are logged, never thrown). */
  async prune(): Promise<{ inbound: number; deliveryEvents: number } | undefined> {
    const now = this.o.clock.now();
    try {
      const inbound = await this.o.store.pruneInbound(now - INBOUND_DEDUPE_MS);
      const deliveryEvents = await this.o.store.pruneDeliveryEvents(now - this.o.deliveryEventsDays * 86_400_000);
      if (inbound + deliveryEvents > 0) this.o.logger.info({ inbound, deliveryEvents }, 'housekeeping: pruned old index rows');
      return { inbound, deliveryEvents };
    } catch (err) {
      this.o.logger.warn({ err }, 'housekeeping round failed; next try in an hour');
      return undefined;
    }
  }

  /** Resolves once the round in progress, if any, has ended (and the next one is scheduled). */
  async idle(): Promise<void> {
    await this.round;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    await this.idle();
  }
}
