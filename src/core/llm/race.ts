/**
 * Awaiting the upstream with the two ways out the model owes its caller (engine.md §3): a user abort and
 * the idle timeout. The timer runs only for this one wait, so it restarts with every upstream event and
 * never counts time the consumer spends on a yielded message. Never rejects; the raced promise's own
 * rejection is captured, so a losing promise cannot surface as an unhandled rejection.
 */
export type UpstreamResult<T> =
  | { kind: 'value'; value: T }
  | { kind: 'error'; error: unknown }
  | { kind: 'abort' }
  | { kind: 'timeout' };

export function raceUpstream<T>(p: Promise<T>, signal: AbortSignal | undefined, idleMs: number): Promise<UpstreamResult<T>> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => finish({ kind: 'abort' });
    const finish = (r: UpstreamResult<T>) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    p.then((value) => finish({ kind: 'value', value }), (error: unknown) => finish({ kind: 'error', error }));
    if (signal?.aborted) return finish({ kind: 'abort' });
    signal?.addEventListener('abort', onAbort, { once: true });
    if (idleMs > 0) timer = setTimeout(() => finish({ kind: 'timeout' }), idleMs);
  });
}
