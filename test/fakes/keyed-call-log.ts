/**
 * The fake servers' record of answered calls, whatever the platform's call record looks like: every
 * call in order, an index per key (method or route name) so `to` is O(1), and per-key counts of calls
 * and of 429s that survive when keeping records is switched off for long benchmark runs. The platform
 * says how a record is keyed and how it reads in a failure message.
 */

/** The least a call record must carry: its HTTP status (429 counts as rate-limited). */
export interface LoggedCall {
  status: number;
}

export interface CallKeying<R> {
  /** The name a call is indexed and counted under (a method or route name). */
  keyOf(rec: R): string;
  /** True where the platform treats names case-insensitively (Telegram's method names). */
  ignoreCase?: boolean;
  /** One short line per call for failure messages. */
  describe(rec: R): string;
}

export class KeyedCallLog<R extends LoggedCall> {
  readonly all: R[] = [];
  private readonly byKey = new Map<string, R[]>();
  private readonly counts = new Map<string, number>();
  private readonly limited = new Map<string, number>();
  private limitedTotal = 0;

  constructor(
    private readonly keep: boolean,
    private readonly keying: CallKeying<R>,
  ) {}

  add(rec: R): void {
    const key = this.norm(this.keying.keyOf(rec));
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (rec.status === 429) {
      this.limitedTotal++;
      this.limited.set(key, (this.limited.get(key) ?? 0) + 1);
    }
    if (!this.keep) return;
    this.all.push(rec);
    const list = this.byKey.get(key);
    if (list) list.push(rec);
    else this.byKey.set(key, [rec]);
  }

  /** Kept calls under this key, oldest first. */
  to(key: string): R[] {
    return this.byKey.get(this.norm(key)) ?? [];
  }

  /** Calls answered under this key (counted even when records are not kept). */
  count(key: string): number {
    return this.counts.get(this.norm(key)) ?? 0;
  }

  /** 429s answered under one key, or in total. */
  rateLimited(key?: string): number {
    return key === undefined ? this.limitedTotal : (this.limited.get(this.norm(key)) ?? 0);
  }

  /** The last few calls, one line each, for failure messages. */
  summary(n: number): string {
    return this.all.slice(-n).map((c) => this.keying.describe(c)).join('; ') || 'none';
  }

  private norm(key: string): string {
    return this.keying.ignoreCase ? key.toLowerCase() : key;
  }
}
