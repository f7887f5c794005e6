/**
 * PairingNotifier: tells people (and groups) the operator's pairing decision, whichever tool made it.
 * Deciders (CLI, admin API) only write the decision to the store; this loop, in the process that talks to
 * the platforms, finds decisions nobody was told yet (every `interval_ms`, or at once when poked), claims
 * each in the store first, so a decision is told once even with two gateways, and posts the message.
 * Decisions for a platform this process does not run wait for one that does.
 */
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { Logger } from '../logger';
import type { GatewayStore, PairingRow } from '../store';

export interface PairingNotifierOptions {
  store: GatewayStore;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  /** Whether this process runs the platform's adapter. */
  runs(platform: string): boolean;
  /** Posts the decision to the person or group. */
  tell(row: PairingRow): Promise<void>;
}

export class PairingNotifier {
  private timer?: TimerHandle;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: PairingNotifierOptions) {}

  start(): void {
    const tick = () => {
      void this.poke().finally(() => {
        if (!this.stopped) this.timer = this.o.clock.setTimeout(tick, this.o.intervalMs);
      });
    };
    this.timer = this.o.clock.setTimeout(tick, this.o.intervalMs);
  }

  /** Tell whoever is waiting now; resolves when this round is done. Rounds never overlap. */
  poke(): Promise<void> {
    this.running = this.running.then(() => this.round()).catch((err: unknown) => this.o.logger.warn({ err }, 'pairing notifications failed'));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    await this.running;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    for (const row of await this.o.store.listUnnotifiedPairings()) {
      if (!this.o.runs(row.platform)) continue;
      if (!(await this.o.store.markPairingNotified(row.code, this.o.clock.now()))) continue;
      await this.o.tell(row).catch((err: unknown) => this.o.logger.warn({ err, platform: row.platform, code: row.code }, 'pairing decision not delivered'));
    }
  }
}
