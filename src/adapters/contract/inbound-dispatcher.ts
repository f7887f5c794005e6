/**
 * Hands an adapter's mapped events to the gateway without holding up the platform's event source: messages
 * of one conversation (and its opening, before them) are delivered in order (one at a time), different
 * conversations and button presses run side by side. Handler failures are logged, never rethrown into the
 * SDK. `drain()` waits for all.
 */
import type { Logger } from 'pino';
import type { ActionEvent, InboundHandler, InboundMessage } from './messages';
import { bindingKey, type ThreadRef } from './thread-ref';

export type InboundEvent = { kind: 'message'; message: InboundMessage } | { kind: 'action'; action: ActionEvent } | { kind: 'opened'; thread: ThreadRef };

export class InboundDispatcher {
  private readonly lanes = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly handler: InboundHandler, private readonly logger: Logger, private readonly platform: string) {}

  deliver(event: InboundEvent): void {
    if (event.kind === 'action') {
      this.track(this.run(() => this.handler.onAction(event.action), 'action', event.action.eventId));
      return;
    }
    const thread = event.kind === 'message' ? event.message.thread : event.thread;
    const key = bindingKey(thread);
    const handle = event.kind === 'message'
      ? () => this.run(() => this.handler.onMessage(event.message), 'message', event.message.eventId)
      : () => this.run(async () => this.handler.onOpened?.(event.thread), 'opened', key);
    const before = this.lanes.get(key) ?? Promise.resolve();
    const mine = before.then(handle);
    this.lanes.set(key, mine);
    void mine.then(() => {
      if (this.lanes.get(key) === mine) this.lanes.delete(key);
    });
    this.track(mine);
  }

  /** Resolves once every delivered event has been handled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.then(() => this.inFlight.delete(p));
  }

  private async run(fn: () => Promise<void>, kind: string, eventId: string): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.logger.error({ err: err instanceof Error ? err.message : String(err), kind, eventId }, `${this.platform}: the gateway failed to handle an event`);
    }
  }
}
