/**
 * `useLoad(fn, deps, everyMs?)`: loads data for a page, reloads when `deps` change and, with `everyMs`,
 * polls while the page is open (the live Overview and Approvals). Keeps the last good data on a failed
 * reload and says what failed; `reload()` refetches after an action.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload(): Promise<void>;
}

export function useLoad<T>(fn: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const data = await fn();
      if (mine === seq.current) setState({ data, loading: false });
    } catch (err) {
      if (mine === seq.current) setState((s) => ({ ...s, error: (err as Error).message, loading: false }));
    }
  }, deps);
  useEffect(() => {
    void reload();
    if (!everyMs) return undefined;
    const t = setInterval(() => void reload(), everyMs);
    return () => clearInterval(t);
  }, [reload]);
  return { ...state, reload };
}
