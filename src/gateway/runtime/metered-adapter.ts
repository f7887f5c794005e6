/**
 * Wraps a ChannelAdapter so every outbound platform call (live edits, finals, cards, notices, typing,
 * reactions, drafts) is counted once in /metrics with its latency and outcome (ok / rate_limited / error),
 * whoever made it. Inbound, lifecycle and limits pass straight through.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock } from '../../adapters/contract/clock';
import type { MessageRef } from '../../adapters/contract/messages';
import type { NativeStream, OutboundContent } from '../../adapters/contract/surface';
import type { ThreadRef } from '../../adapters/contract/thread-ref';
import type { GatewayMetrics } from '../admin/metrics';

export function meterAdapter(inner: ChannelAdapter, metrics: GatewayMetrics, clock: Clock): ChannelAdapter {
  const platform = inner.platform;
  const timed = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    const started = clock.now();
    try {
      const out = await call();
      metrics.platformCall(platform, method, 'ok', clock.now() - started);
      return out;
    } catch (err) {
      const c = inner.classify(err).classification;
      metrics.platformCall(platform, method, c.kind === 'retry' && c.retryAfterMs !== undefined ? 'rate_limited' : 'error', clock.now() - started);
      throw err;
    }
  };
  const meterStream = (s: NativeStream): NativeStream =>
    s.kind === 'draft'
      ? { kind: 'draft', draft: (c) => timed('draft', () => s.draft(c)) }
      : {
          kind: 'append',
          start: (c) => timed('stream_start', () => s.start(c)),
          append: (id, d, c) => timed('stream_append', () => s.append(id, d, c)),
          stop: (id, c) => timed('stream_stop', () => s.stop(id, c)),
        };
  const wrapped: ChannelAdapter = {
    get platform() {
      return inner.platform;
    },
    get limits() {
      return inner.limits;
    },
    start: (h) => inner.start(h),
    stop: () => inner.stop(),
    place: (t) => inner.place(t),
    post: (thread: ThreadRef, content: OutboundContent) => timed('post', () => inner.post(thread, content)),
    edit: (ref: MessageRef, content: OutboundContent) => timed('edit', () => inner.edit(ref, content)),
    delete: (ref: MessageRef) => timed('delete', () => inner.delete(ref)),
    rateScopes: (thread, op) => inner.rateScopes(thread, op),
    classify: (e) => inner.classify(e),
  };
  if (inner.measure) wrapped.measure = (md) => inner.measure!(md);
  if (inner.health) wrapped.health = () => inner.health!();
  if (inner.typing) wrapped.typing = (t) => timed('typing', () => inner.typing!(t));
  if (inner.react) wrapped.react = (r, e) => timed('reaction', () => inner.react!(r, e));
  if (inner.ephemeral) wrapped.ephemeral = (t, u, text) => timed('ephemeral', () => inner.ephemeral!(t, u, text));
  if (inner.setTitle) wrapped.setTitle = (t, title) => timed('title', () => inner.setTitle!(t, title));
  if (inner.startConversation) wrapped.startConversation = (target, c) => timed('post', () => inner.startConversation!(target, c));
  if (inner.startConversationScopes) wrapped.startConversationScopes = (target) => inner.startConversationScopes!(target);
  if (inner.deliveryProblem) wrapped.deliveryProblem = (target) => inner.deliveryProblem!(target);
  if (inner.received) wrapped.received = (e) => inner.received!(e);
  if (inner.nativeStream) {
    wrapped.nativeStream = (t, dm) => {
      const s = inner.nativeStream!(t, dm);
      return s && meterStream(s);
    };
  }
  return wrapped;
}
