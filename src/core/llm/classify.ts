/**
 * Failure classification for one model request (engine.md §1.6, §3). The caller has already handled user
 * abort and the idle timeout; this ranks the rest: malformed (parse error, stream cut after the response
 * began) > auth (401, auth error codes, `AuthenticationError`; a bare 403 is not auth) > fast mode rejected
 * (`failed`, permanent) > transport (429/408/5xx, connection errors, Node socket codes, undici `UND_ERR_*`,
 * timeout/network/rate-limit words — anywhere on the `cause` chain) ⇒ `timeout` > `failed`.
 */
import type { LLMOutcome } from '../interfaces';
import { openaiSdk } from './openai-sdk';

export interface ClassifyContext {
  /** `connect` = before the response headers; `body` = while reading the event stream. */
  phase: 'connect' | 'body';
  /** The request asked for the priority tier, so a 4xx naming it means fast mode is unsupported. */
  fastMode: boolean;
}

const AUTH_CODES = new Set([
  'invalid_api_key', 'incorrect_api_key', 'invalid_authentication', 'authentication_error', 'authentication_failed',
  'unauthorized', 'missing_api_key', 'no_api_key', 'api_key_invalid', 'invalid_x_api_key', 'account_deactivated',
]);

const SOCKET_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH',
  'ENETDOWN', 'EHOSTUNREACH', 'EHOSTDOWN', 'ESOCKETTIMEDOUT', 'EPROTO',
]);

const TRANSPORT_WORDS = /time[d ]?\s?out|timeout|network|rate[ _-]?limit|socket hang up|connection (?:reset|refused|closed|error)|overloaded|too many requests/i;

export const FAST_MODE_GUIDANCE = 'fast mode (service_tier "priority") is not supported by this model; turn fast_mode off in its model entry';

type Level = Record<string, unknown>;

/** The error and its causes (bounded, cycle-safe), as plain records. */
export function causeChain(err: unknown): Level[] {
  const out: Level[] = [];
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== null && typeof cur === 'object' && !seen.has(cur) && out.length < 10) {
    seen.add(cur);
    out.push(cur as Level);
    cur = (cur as Level).cause;
  }
  return out;
}

function statusOf(level: Level): number | undefined {
  for (const v of [level.status, level.statusCode, level.code]) if (typeof v === 'number' && v >= 100 && v < 600) return v;
  return undefined;
}

/** Machine codes a level carries: its own `code`/`type` and those of a provider `error` body. */
function codesOf(level: Level): string[] {
  const out: string[] = [];
  const add = (v: unknown) => { if (typeof v === 'string' && v !== '') out.push(v); };
  add(level.code);
  add(level.type);
  const body = level.error;
  if (body && typeof body === 'object') {
    add((body as Level).code);
    add((body as Level).type);
  }
  return out;
}

function messageOf(level: Level): string {
  return typeof level.message === 'string' ? level.message : '';
}

/** A one-line description: the top message plus the innermost distinct cause (`connect ECONNREFUSED …`). */
export function describeError(err: unknown): string {
  const chain = causeChain(err);
  if (chain.length === 0) return String(err);
  const top = messageOf(chain[0]) || String(chain[0].name ?? 'error');
  const inner = chain.slice(1).reverse().find((l) => messageOf(l) !== '' && messageOf(l) !== top);
  const code = chain.map((l) => l.code).find((c) => typeof c === 'string' && !top.includes(c));
  const detail = inner ? messageOf(inner) : typeof code === 'string' ? code : '';
  return detail ? `${top} (${detail})` : top;
}

function isParseError(chain: Level[]): boolean {
  return chain.some((l) => l instanceof SyntaxError || l.name === 'SyntaxError');
}

function isAuth(chain: Level[]): boolean {
  return chain.some((l) =>
    statusOf(l) === 401 ||
    l instanceof openaiSdk().AuthenticationError || l.name === 'AuthenticationError' ||
    codesOf(l).some((c) => AUTH_CODES.has(c.toLowerCase())));
}

function isFastModeRejection(chain: Level[]): boolean {
  return chain.some((l) => {
    const s = statusOf(l);
    if (s === undefined || s < 400 || s > 499 || s === 408 || s === 429) return false;
    const body = l.error && typeof l.error === 'object' ? (l.error as Level) : {};
    return l.param === 'service_tier' || body.param === 'service_tier' || /service[_ ]tier|priority/i.test(messageOf(l) + ' ' + messageOf(body));
  });
}

function isTransport(chain: Level[]): boolean {
  return chain.some((l) => {
    const s = statusOf(l);
    if (s === 408 || s === 429 || (s !== undefined && s >= 500)) return true;
    if (l instanceof openaiSdk().APIConnectionError) return true;
    if (codesOf(l).some((c) => SOCKET_CODES.has(c) || c.startsWith('UND_ERR_'))) return true;
    return TRANSPORT_WORDS.test(messageOf(l)) || codesOf(l).some((c) => TRANSPORT_WORDS.test(c));
  });
}

export function classifyError(err: unknown, ctx: ClassifyContext): LLMOutcome {
  const chain = causeChain(err);
  const errorMessage = describeError(err);
  // Once the body is streaming, anything that is not a provider error event means the stream broke.
  const cutMidStream = ctx.phase === 'body' && !(err instanceof openaiSdk().APIError);
  if (isParseError(chain) || cutMidStream) return { status: 'malformed', errorMessage: cutMidStream && !isParseError(chain) ? `stream cut: ${errorMessage}` : errorMessage };
  if (isAuth(chain)) return { status: 'auth', errorMessage };
  if (ctx.fastMode && isFastModeRejection(chain)) return { status: 'failed', permanent: true, errorMessage: `${errorMessage} — ${FAST_MODE_GUIDANCE}` };
  if (isTransport(chain)) return { status: 'timeout', errorMessage };
  return { status: 'failed', errorMessage };
}
