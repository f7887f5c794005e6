/**
 * The fake server's record of answered API calls: every call in order, an index per method (so
 * `callsTo` is O(1)), and per-method counts that survive even when keeping records is switched off
 * for long benchmark runs.
 */

export interface CallRecord {
  seq: number;
  method: string;
  /** Parameters as sent (form values stay strings; JSON bodies keep their types). */
  params: Record<string, unknown>;
  chatId?: number | string;
  /** Clock time the call arrived (ms). */
  at: number;
  /** Real time spent answering, in ms (held long polls included). */
  durationMs: number;
  status: number;
  ok: boolean;
  result?: unknown;
  error?: { error_code: number; description: string; parameters?: { retry_after?: number } };
  via: 'http' | 'webhook-reply';
  /** True when a `failNext` rule produced the answer. */
  forced: boolean;
  /** True when the client hung up before the answer (an aborted long poll). */
  aborted: boolean;
}

export class CallLog {
  readonly all: CallRecord[] = [];
  private byMethod = new Map<string, CallRecord[]>();
  private counts = new Map<string, number>();

  constructor(private readonly keep: boolean) {}

  add(rec: CallRecord): void {
    const key = rec.method.toLowerCase();
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (!this.keep) return;
    this.all.push(rec);
    const list = this.byMethod.get(key);
    if (list) list.push(rec);
    else this.byMethod.set(key, [rec]);
  }

  to(method: string): CallRecord[] {
    return this.byMethod.get(method.toLowerCase()) ?? [];
  }

  count(method: string): number {
    return this.counts.get(method.toLowerCase()) ?? 0;
  }

  /** The last few calls, one line each, for failure messages. */
  summary(n: number): string {
    return this.all.slice(-n).map((c) => `${c.method}→${c.status}${c.error ? ` ${c.error.description}` : ''}`).join('; ') || 'none';
  }
}
