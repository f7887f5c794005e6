/**
 * Display names for the people who write to the bot: `users.info` once per user, then a cache (bounded,
 * entries refreshed after an hour). A lookup that fails (missing users:read, a network error) leaves the
 * name out rather than holding the message up, and is retried on a later message. `withDisplayNames` fills
 * the name in inside the dispatcher's per-thread lane, so looking it up never reorders a thread's messages.
 */
import type { Clock } from '../contract/clock';
import type { InboundHandler } from '../contract/messages';

export type UserLookup = (userId: string) => Promise<{ display_name?: string; real_name?: string; name?: string } | undefined>;

export const NAME_TTL_MS = 3_600_000;
export const NAME_CACHE_MAX = 5_000;

export class DisplayNames {
  private readonly cache = new Map<string, { name?: string; at: number }>();
  private readonly inFlight = new Map<string, Promise<string | undefined>>();

  constructor(private readonly lookup: UserLookup, private readonly clock: Clock, private readonly onError: (err: unknown) => void = () => undefined) {}

  async nameOf(userId: string): Promise<string | undefined> {
    const hit = this.cache.get(userId);
    if (hit && this.clock.now() - hit.at < NAME_TTL_MS) return hit.name;
    const running = this.inFlight.get(userId);
    if (running) return running;
    const p = this.fetch(userId).finally(() => this.inFlight.delete(userId));
    this.inFlight.set(userId, p);
    return p;
  }

  private async fetch(userId: string): Promise<string | undefined> {
    try {
      const u = await this.lookup(userId);
      const name = [u?.display_name, u?.real_name, u?.name].find((n) => typeof n === 'string' && n.trim() !== '')?.trim();
      if (this.cache.size >= NAME_CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(userId, { ...(name ? { name } : {}), at: this.clock.now() });
      return name;
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }
}

/** The handler with each message's sender named (when Slack knows a name). */
export function withDisplayNames(handler: InboundHandler, names: DisplayNames): InboundHandler {
  return {
    onMessage: async (m) => {
      const name = m.user.name ?? (await names.nameOf(m.user.id));
      return handler.onMessage(name ? { ...m, user: { ...m.user, name } } : m);
    },
    onAction: (a) => handler.onAction(a),
    onOpened: async (t) => handler.onOpened?.(t),
  };
}
