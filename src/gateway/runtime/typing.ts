/**
 * "typing…" as a best-effort signal: it draws on the shared rate budget like any call, but only when a
 * token is free now, so it never delays replies nor eats into a chat's retry_after pause. `keepTyping`
 * renews it every `renewMs` while a Task runs (0 = shown once, never renewed).
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock, TimerHandle } from '../../adapters/contract/clock';
import type { ThreadRef } from '../../adapters/contract/thread-ref';
import type { RateGovernor } from '../../adapters/render';

export async function showTyping(governor: RateGovernor, adapter: ChannelAdapter, thread: ThreadRef): Promise<boolean> {
  if (!adapter.typing) return false;
  const grant = await governor.acquire(adapter.rateScopes(thread, 'typing'), { priority: 'live', maxWaitMs: 0 });
  if (!grant.granted) return false;
  await adapter.typing(thread).catch(() => undefined);
  return true;
}

/** `alreadySent`: the inbound handler showed it for this message; only renewals are left. */
export function keepTyping(governor: RateGovernor, clock: Clock, adapter: ChannelAdapter, thread: ThreadRef, renewMs: number, alreadySent: boolean): { stop(): void } {
  if (!adapter.typing) return { stop: () => undefined };
  let timer: TimerHandle | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    void showTyping(governor, adapter, thread);
    if (renewMs > 0) timer = clock.setTimeout(tick, renewMs);
  };
  if (!alreadySent) tick();
  else if (renewMs > 0) timer = clock.setTimeout(tick, renewMs);
  return {
    stop: () => {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
    },
  };
}
