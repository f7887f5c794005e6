/**
 * Rate scope vocabulary shared by adapters (which know their platform's buckets) and the rate governor
 * (which enforces them): a request names every bucket it draws from, broadest first, e.g. Telegram
 * [bot account 30/s, chat 20/min], Slack [workspace × chat.update 45/min], Discord [bot 45/s, channel 5/5 s].
 */

/** Token bucket: at most `burst` at once, refilled at `count` tokens per `perMs`. Any window of T ms admits ≤ burst + count·T/perMs. */
export interface RateLimit {
  count: number;
  perMs: number;
  burst: number;
}

export interface RateScope {
  /** Stable bucket identity, e.g. `telegram:bot123:chat:-100456` or `slack:T1:chat.update`. */
  key: string;
  limit: RateLimit;
  /** What a 429 naming this level pauses (see PlatformError retry scope). */
  level: 'account' | 'method' | 'chat';
}

/** Who waits first: final text and approval cards before live edits. */
export type RatePriority = 'final' | 'live';

/** The operations a message surface performs, for picking rate scopes. */
export type RateOp = 'post' | 'edit' | 'delete' | 'draft' | 'stream_start' | 'stream_append' | 'stream_stop' | 'typing' | 'reaction' | 'ephemeral';
