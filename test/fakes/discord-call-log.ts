/**
 * The fake Discord API's record of answered REST calls: the shared keyed log over Discord's call
 * record (clock time and `performance.now()` stamps, for benchmarks), indexed by route name, with
 * per-route counts of calls and 429s that survive when keeping records is switched off for long runs.
 */
import { KeyedCallLog } from './keyed-call-log';

export interface CallRecord {
  seq: number;
  /** Route name, e.g. `createMessage`, `interactionCallback` (`unknown` when nothing matched). */
  route: string;
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  /** Route template, e.g. `POST /channels/:channel/messages`. */
  template: string;
  majorId?: string;
  query: Record<string, string>;
  body: unknown;
  files: Array<{ field: string; fileName: string; contentType: string; size: number }>;
  /** Clock time the call arrived (ms). */
  at: number;
  /** performance.now() when the request was read, and when the reply was written. */
  receivedAt: number;
  answeredAt: number;
  durationMs: number;
  status: number;
  ok: boolean;
  result?: unknown;
  error?: { code: number; message: string; errors?: unknown; retry_after?: number; global?: boolean };
  rateLimited?: { scope: string; retryAfter: number; global: boolean };
  /** True when a `failNext` rule produced the answer. */
  forced: boolean;
}

export class DiscordCallLog extends KeyedCallLog<CallRecord> {
  constructor(keep: boolean) {
    super(keep, {
      keyOf: (c) => c.route,
      describe: (c) => `${c.method} ${c.path}→${c.status}${c.error ? ` ${c.error.code} ${c.error.message}` : ''}`,
    });
  }
}
