/**
 * The fake Bot API's record of answered calls: how one answer becomes a CallRecord and its HTTP reply,
 * and the shared keyed log over those records, indexed and counted by method name case-insensitively
 * (as the Bot API resolves method names), counts surviving when records are switched off.
 */
import { KeyedCallLog } from './keyed-call-log';
import { TgApiError } from './telegram-errors';
import type { FaultOutcome } from './telegram-faults';

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

/** How a call was answered: a Bot API error, a method's result, or a forced raw reply / dropped connection. */
export type CallAnswer = TgApiError | { result: unknown } | Exclude<FaultOutcome, TgApiError>;

export type CallFacts = Pick<CallRecord, 'seq' | 'method' | 'params' | 'chatId' | 'at' | 'durationMs' | 'via' | 'forced' | 'aborted'>;

/** The record of one answered call and the reply to write (status 0: the connection is dropped). */
export function answeredCall(call: CallFacts, answer: CallAnswer): { rec: CallRecord; reply: { status: number; body: unknown } } {
  const { seq, method, params, at, durationMs, via, forced, aborted } = call;
  const rec: CallRecord = { seq, method, params, at, durationMs, status: 200, ok: true, via, forced, aborted };
  if (call.chatId !== undefined) rec.chatId = call.chatId;
  if (answer instanceof TgApiError) {
    const body = answer.body();
    rec.status = answer.code;
    rec.ok = false;
    rec.error = { error_code: body.error_code, description: body.description };
    if (body.parameters) rec.error.parameters = body.parameters;
    return { rec, reply: { status: answer.code, body } };
  }
  if (answer === 'disconnect') {
    rec.status = 0;
    rec.ok = false;
    return { rec, reply: { status: 0, body: undefined } };
  }
  if ('httpStatus' in answer) {
    rec.status = answer.httpStatus;
    rec.ok = false;
    return { rec, reply: { status: answer.httpStatus, body: answer.body } };
  }
  rec.result = answer.result;
  return { rec, reply: { status: 200, body: { ok: true, result: answer.result } } };
}

export class CallLog extends KeyedCallLog<CallRecord> {
  constructor(keep: boolean) {
    super(keep, {
      keyOf: (c) => c.method,
      ignoreCase: true,
      describe: (c) => `${c.method}→${c.status}${c.error ? ` ${c.error.description}` : ''}`,
    });
  }
}
