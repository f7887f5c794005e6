/**
 * Leadership: when several gateway instances share one bot, the receivers a platform allows only once
 * (Telegram long polling on one token) run on the one instance that leads; the others still send. The
 * gateway provides it (a PostgreSQL advisory lock); alone, an instance always leads and none is given.
 */
export interface Leadership {
  /** Resolves once this instance leads; `onLost` is called once if it stops leading (then acquire again). */
  acquire(onLost: () => void): Promise<void>;
  /** Stops leading or waiting to lead. */
  release(): Promise<void>;
}

/** A leadership for one named receiver (e.g. `telegram-poll:<bot id>`). */
export type LeadershipFor = (name: string) => Leadership;
