/**
 * Forced failures for the fake Slack Web API: "the next N calls of method M (in channel C) answer X",
 * where X is a Slack error (`ok:false` with HTTP 200), a raw HTTP status (a 500/503 page), a 429 with a
 * given Retry-After, a dropped connection, or a delay before the call is answered (normally or with
 * another outcome). Rules are consumed in the order they were added (the shared `FaultRules`).
 */
import { FaultRules } from './fault-rules';

export type SlackFaultOutcome =
  | { error: string; extra?: Record<string, unknown> }
  | { httpStatus: number; body?: string; contentType?: string; headers?: Record<string, string> }
  | { rateLimited: number }
  | 'disconnect'
  | { delayMs: number; then?: SlackFaultOutcome };

export interface SlackFaultSpec {
  method: string;
  /** Only calls naming this conversation (`channel` / `channel_id`); any when absent. */
  channel?: string;
  /** How many matching calls fail; default 1. */
  times?: number;
  with: SlackFaultOutcome;
}

/** The call a rule is checked against: the Web API method and the conversation it names, if any. */
export interface FaultedCall {
  method: string;
  channel: string | undefined;
}

export class SlackFaultInjector extends FaultRules<SlackFaultSpec, FaultedCall> {
  constructor() {
    super((rule, call) => rule.method === call.method && (rule.channel === undefined || rule.channel === call.channel));
  }
}
