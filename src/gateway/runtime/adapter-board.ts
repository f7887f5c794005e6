/**
 * The adapters' states for /readyz, /metrics and the operator (gateway.md §7): starts each bound adapter
 * (connected, or failed with why; one whose SDK is still loading counts as connecting), then reads its
 * own health (a silent connection being re-opened, a poll loop that stopped), records the last inbound
 * event per platform, and says why every chat platform without an adapter is off — disabled in config,
 * no credentials, or not available in this version.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { AdapterBinding } from '../../adapters/contract/binding';
import type { InboundHandler } from '../../adapters/contract/messages';
import type { AdapterStatus } from '../admin/types';
import { CHAT_PLATFORMS, type GatewayConfig } from '../config';
import type { Logger } from '../logger';

export class AdapterBoard {
  private readonly status = new Map<string, AdapterStatus>();
  private readonly live = new Map<string, ChannelAdapter>();

  constructor(private readonly logger: Logger) {}

  /** Every adapter's state; a started adapter's own health (a silent connection, a stopped poll) wins. */
  list(): AdapterStatus[] {
    return [...this.status.values()].map((s) => {
      const h = s.state === 'connected' ? this.live.get(s.name)?.health?.() : undefined;
      if (!h) return { ...s };
      const lastIn = Math.max(s.last_inbound_at ?? 0, h.lastEventAt ?? 0) || undefined;
      return {
        ...s,
        state: h.state === 'connected' ? 'connected' : h.state === 'reconnecting' ? 'connecting' : 'failed',
        ...(h.detail ? { detail: h.detail } : {}),
        ...(lastIn ? { last_inbound_at: lastIn } : {}),
      };
    });
  }

  /** Started and not given up (connected, or re-opening its connection). */
  isRunning(platform: string): boolean {
    const s = this.list().find((x) => x.name === platform);
    return s?.state === 'connected' || s?.state === 'connecting';
  }

  /** Why `platform` has no running adapter, as a sentence part ("telegram is not running here: no credentials"). */
  whyAbsent(platform: string): string {
    const s = this.list().find((x) => x.name === platform);
    if (!s) return `${platform} is not a platform this gateway runs`;
    if (s.state === 'connected') return `${platform} is running`;
    return `${platform} is not running in this gateway (${s.state}${s.detail ? `: ${s.detail}` : ''})`;
  }

  touch(platform: string, at: number): void {
    const s = this.status.get(platform);
    if (s) s.last_inbound_at = at;
  }

  /** Starts every binding in turn; a failure is recorded and logged, never thrown (the others still start). */
  async startAll(bindings: readonly AdapterBinding[], handlerFor: (b: AdapterBinding) => InboundHandler): Promise<void> {
    for (const b of bindings) await this.start(b, handlerFor(b));
  }

  /** Starts one binding: connecting, then connected or failed with why (logged, never thrown). */
  async start(b: AdapterBinding, handler: InboundHandler): Promise<void> {
    const s: AdapterStatus = { name: b.adapter.platform, state: 'connecting' };
    this.status.set(b.adapter.platform, s);
    try {
      await b.adapter.start(handler);
      s.state = 'connected';
      this.live.set(b.adapter.platform, b.adapter);
      this.logger.info({ platform: b.adapter.platform }, 'adapter connected');
    } catch (err) {
      this.fail(b.adapter.platform, err);
    }
  }

  /** A platform whose adapter is still to be loaded: connecting (not ready) until it has started. */
  pending(platform: string): void {
    this.status.set(platform, { name: platform, state: 'connecting', detail: 'loading its adapter' });
  }

  /** The platform's adapter could not be loaded or started. */
  fail(platform: string, err: unknown): void {
    const detail = err instanceof Error ? err.message : String(err);
    this.status.set(platform, { name: platform, state: 'failed', detail });
    this.logger.error({ platform, err: detail }, 'adapter failed to start');
  }

  /** Every chat platform that has no running adapter, with the reason. */
  noteAbsent(config: GatewayConfig): void {
    for (const p of CHAT_PLATFORMS) {
      if (this.status.has(p)) continue;
      const c = config[p];
      const detail = !c.enabled ? 'disabled in config' : !c.configured ? 'no credentials' : 'not available in this version';
      this.status.set(p, { name: p, state: 'disabled', detail });
      if (c.configured) this.logger.warn({ platform: p }, `${p} credentials are set, but this version has no ${p} adapter: it is not started`);
    }
  }
}
