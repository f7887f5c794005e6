/**
 * Forced REST failures for the fake Discord API: "the next N calls of route R (for major id M) fail
 * with X", where X is an API error code, a raw HTTP status (a proxy's 502 page), a 429 with a chosen
 * retry_after and scope, a delay before the normal answer, or a dropped connection (FIN or RST).
 * Rules are consumed in the order they were added (the shared `FaultRules`).
 */
import { FaultRules } from './fault-rules';

export type FaultOutcome =
  /** An API error: code's usual status and message unless given. */
  | { code: number; status?: number; message?: string }
  /** A non-JSON reply, as a proxy in front of the API would send. */
  | { httpStatus: number; body?: string; contentType?: string }
  /** A 429 with this retry_after (seconds); global adds X-RateLimit-Global. */
  | { rateLimit: number; global?: boolean; scope?: 'user' | 'shared' | 'global' }
  /** Holds the request this long, then answers normally (or with `then`). */
  | { delayMs: number; then?: Exclude<FaultOutcome, { delayMs: number }> }
  /** Closes the socket without a reply ('disconnect' = FIN, 'reset' = RST). */
  | 'disconnect'
  | 'reset';

export interface FaultSpec {
  /** A route name (`createMessage`) or template (`POST /channels/:channel/messages`). */
  route: string;
  /** Only calls whose major parameter (channel, guild, webhook id or interaction id) equals this. */
  majorId?: string;
  /** How many matching calls fail; default 1. */
  times?: number;
  with: FaultOutcome;
}

/** The call a rule is checked against: the matched route's name and template, and its major id. */
export interface FaultedCall {
  routeName: string;
  template: string;
  majorId: string | undefined;
}

export class DiscordFaults extends FaultRules<FaultSpec, FaultedCall> {
  constructor() {
    super((rule, call) => (rule.route === call.routeName || rule.route === call.template) && (rule.majorId === undefined || rule.majorId === call.majorId));
  }
}
