/**
 * The fake Slack's record of answered Web API calls: the shared keyed log over Slack's call record
 * (arguments, answer, and timing in clock ms and `performance.now()` at arrival, for benchmarks),
 * indexed and counted (calls and 429s) by method, counts surviving when records are switched off.
 */
import { KeyedCallLog } from './keyed-call-log';

export interface SlackCallRecord {
  seq: number;
  method: string;
  /** Arguments as sent (form values stay strings; JSON bodies keep their types). */
  params: Record<string, unknown>;
  /** Which token authorised the call. */
  tokenKind: 'bot' | 'app' | 'none' | 'unknown';
  /** The conversation the call names (`channel` or `channel_id`), when it names one. */
  channel?: string;
  /** Clock time the call arrived (ms). */
  at: number;
  /** `performance.now()` when the call arrived. */
  perfAt: number;
  /** Real time spent answering, in ms (forced delays included). */
  durationMs: number;
  /** HTTP status (0 for a dropped connection). */
  status: number;
  ok: boolean;
  /** Slack's `error` code for ok:false answers ("ratelimited" for a 429). */
  error?: string;
  /** The JSON body answered (absent for raw and dropped answers). */
  response?: Record<string, unknown>;
  retryAfter?: number;
  /** True when a `failNext` rule produced the answer. */
  forced: boolean;
}

export class SlackCallLog extends KeyedCallLog<SlackCallRecord> {
  constructor(keep: boolean) {
    super(keep, { keyOf: (c) => c.method, describe: (c) => `${c.method}→${c.status}${c.error ? ` ${c.error}` : ''}` });
  }
}
