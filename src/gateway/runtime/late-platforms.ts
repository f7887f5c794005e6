/**
 * Platforms whose adapter loads after the first adapters run: their SDKs (Bolt ~0.22 s, Discord's transport
 * ~0.07 s from their bundles) would otherwise hold back the first getUpdates. Each counts as connecting on
 * the board until it has started, so /readyz is not green before; its routes go on `app`, mounted before the
 * admin API, and until they are there `/<platform>/…` answers 503 as an adapter that is not running does.
 */
import express from 'express';
import type { AdapterBinding } from '../../adapters/contract/binding';
import type { InboundHandler } from '../../adapters/contract/messages';
import type { AdapterBoard } from './adapter-board';

/** A platform whose binding (and SDK) is built only when the first adapters have started. */
export interface DeferredBinding {
  platform: string;
  load(): AdapterBinding | Promise<AdapterBinding>;
}

/** What the gateway is given per platform: a binding to start at once, or one to load later. */
export type PlatformEntry = AdapterBinding | DeferredBinding;

export function isDeferred(e: PlatformEntry): e is DeferredBinding {
  return 'load' in e;
}

export class LatePlatforms {
  /** Mounted on the gateway listener before the admin API: the late adapters' routes. */
  readonly app = express();
  private readonly mounted = new Set<string>();

  constructor(private readonly deferred: readonly DeferredBinding[]) {
    this.app.disable('x-powered-by');
    for (const d of deferred) {
      this.app.use(`/${d.platform}`, (_req, res, next) => {
        if (this.mounted.has(d.platform)) return next();
        res.status(503).json({ error: { code: 'unavailable', message: `the ${d.platform} adapter is still starting` } });
      });
    }
  }

  /** On the board as connecting from now on (call before the first adapters start). */
  announce(board: AdapterBoard): void {
    for (const d of this.deferred) board.pending(d.platform);
  }

  /**
   * Loads each platform in order and starts it without waiting for the one before to connect, so one
   * SDK loads while another's handshake is in flight. `add` takes each built binding into the gateway.
   */
  async start(o: { board: AdapterBoard; handlerFor: (b: AdapterBinding) => InboundHandler; add: (b: AdapterBinding) => AdapterBinding }): Promise<void> {
    if (this.deferred.length === 0) return;
    // A load blocks the thread: first let the requests the started adapters just made (getUpdates) go out.
    await new Promise((r) => setImmediate(r));
    const starting: Promise<void>[] = [];
    for (const d of this.deferred) {
      let b: AdapterBinding;
      try {
        b = o.add(await d.load());
      } catch (err) {
        o.board.fail(d.platform, err);
        continue;
      }
      b.routes?.(this.app);
      this.mounted.add(d.platform);
      starting.push(o.board.start(b, o.handlerFor(b)));
    }
    await Promise.all(starting);
  }
}
