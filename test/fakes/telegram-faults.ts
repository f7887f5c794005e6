/**
 * Forced failures for the fake Bot API: "the next N calls of method M (for chat C) fail with X", where X
 * is a Bot API error (429 storm, 403 blocked, 5xx…), a raw non-JSON HTTP reply (a proxy's 502 page), or
 * a dropped connection. Rules are consumed in the order they were added (the shared `FaultRules`).
 */
import { FaultRules } from './fault-rules';
import { TgApiError } from './telegram-errors';

export type FaultOutcome = TgApiError | { httpStatus: number; body?: string; contentType?: string } | 'disconnect';

export interface FaultSpec {
  method: string;
  /** Only calls whose chat_id equals this (number, or "@username"); any chat when absent. */
  chatId?: number | string;
  /** How many matching calls fail; default 1. */
  times?: number;
  with: FaultOutcome;
}

/** The call a rule is checked against: the method as routed and the call's chat_id, if any. */
export interface FaultedCall {
  method: string;
  chatId: number | string | undefined;
}

/** Matches method names case-insensitively, as the Bot API resolves them. */
export class FaultInjector extends FaultRules<FaultSpec, FaultedCall> {
  constructor() {
    super((rule, call) => rule.method.toLowerCase() === call.method.toLowerCase() && (rule.chatId === undefined || rule.chatId === call.chatId));
  }
}

export const isApiError = (o: FaultOutcome): o is TgApiError => o instanceof TgApiError;
