/**
 * classifyDiscordError: any failure of a Discord call (@discordjs/rest's DiscordAPIError, HTTPError and
 * RateLimitError, gateway errors, network errors, anything) as one PlatformError (platforms.md "Retry vs
 * surface"): rate limits → retry with the server's delay (global → the bot's bucket, else the channel's);
 * 5xx / network → retry; 10008 / 30046 / 50083 / a dead interaction webhook → degrade "gone" (post anew);
 * an over-long body → degrade "too_long"; 40060 / 10062 → ignore; 401, 50001, 50013, 50007 → surface.
 * Messages never carry URLs (interaction webhook URLs hold a token). Never throws.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { PlatformError, thrownMessage, type ErrorClassification } from '../contract/errors';

/** Discord JSON error codes the adapter acts on. */
export const DiscordCode = {
  UnknownChannel: 10003,
  UnknownMessage: 10008,
  UnknownWebhook: 10015,
  UnknownInteraction: 10062,
  MaxDailyCommandCreates: 30034,
  OldMessageEdits: 30046,
  MissingAccess: 50001,
  EmptyMessage: 50006,
  CannotDmUser: 50007,
  MissingPermissions: 50013,
  InvalidWebhookToken: 50027,
  InvalidFormBody: 50035,
  ThreadArchived: 50083,
  AlreadyAcknowledged: 40060,
  ThreadAlreadyExists: 160004,
} as const;

const GONE = new Set<number>([DiscordCode.UnknownMessage, DiscordCode.OldMessageEdits, DiscordCode.ThreadArchived, DiscordCode.UnknownWebhook, DiscordCode.InvalidWebhookToken]);

function get(o: unknown, key: string): unknown {
  if (o === null || typeof o !== 'object') return undefined;
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Whether a 50035 is about the message text being too long (re-split), not a malformed request. */
function isLengthError(raw: unknown): boolean {
  const list = get(get(get(raw, 'errors'), 'content'), '_errors');
  return Array.isArray(list) && list.some((e) => get(e, 'code') === 'BASE_TYPE_MAX_LENGTH');
}

export function classifyApiError(status: number, code: number | string, raw: unknown): ErrorClassification {
  if (status === 429) {
    const s = Number(get(raw, 'retry_after'));
    const scope = get(raw, 'global') === true ? 'account' : 'chat';
    return Number.isFinite(s) && s >= 0 ? { kind: 'retry', retryAfterMs: Math.ceil(s * 1000), scope } : { kind: 'retry', scope };
  }
  if (status >= 500) return { kind: 'retry' };
  // a dead interaction webhook answers 401 too: that is the interaction, not the bot token
  if (typeof code === 'number' && GONE.has(code)) return { kind: 'degrade', reason: 'gone' };
  if (status === 401) return { kind: 'surface', reason: 'auth' };
  switch (code) {
    case DiscordCode.AlreadyAcknowledged: return { kind: 'ignore', reason: 'already_acknowledged' };
    case DiscordCode.UnknownInteraction: return { kind: 'ignore', reason: 'query_too_old' };
    case DiscordCode.MissingAccess:
    case DiscordCode.MissingPermissions:
    case DiscordCode.UnknownChannel:
      return { kind: 'surface', reason: 'permission' };
    case DiscordCode.CannotDmUser: return { kind: 'surface', reason: 'blocked' };
    case DiscordCode.MaxDailyCommandCreates: return { kind: 'surface', reason: 'rate_limited_app' };
    case DiscordCode.InvalidFormBody: return isLengthError(raw) ? { kind: 'degrade', reason: 'too_long' } : { kind: 'surface', reason: 'invalid_request' };
    case DiscordCode.EmptyMessage:
    case DiscordCode.ThreadAlreadyExists:
      return { kind: 'surface', reason: 'invalid_request' };
  }
  if (status === 403) return { kind: 'surface', reason: 'permission' };
  // anything else: retried a bounded number of times by the writer / outbox, then reported
  return { kind: 'retry' };
}

function fromRateLimit(e: RateLimitError): PlatformError {
  const ms = Number.isFinite(e.retryAfter) && e.retryAfter >= 0 ? Math.ceil(e.retryAfter) : undefined;
  const c: ErrorClassification = { kind: 'retry', scope: e.global ? 'account' : 'chat', ...(ms !== undefined ? { retryAfterMs: ms } : {}) };
  return new PlatformError('discord', c, `${e.method.toUpperCase()} ${e.route}: rate limited (${e.global ? 'global' : e.scope}), retry in ${ms ?? '?'} ms`, { code: 429, cause: e });
}

/** Maps anything a Discord call threw to a classified PlatformError (PlatformErrors pass through). */
export function classifyDiscordError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  try {
    if (err instanceof RateLimitError) return fromRateLimit(err);
    if (err instanceof DiscordAPIError) {
      const what = `${err.method.toUpperCase()} ${err.status} ${err.code}: ${String(get(err.rawError, 'message') ?? get(err.rawError, 'error_description') ?? '')}`;
      return new PlatformError('discord', classifyApiError(err.status, err.code, err.rawError), what, { code: err.code, cause: err });
    }
    if (err instanceof HTTPError) return new PlatformError('discord', { kind: 'retry' }, `${err.method.toUpperCase()} HTTP ${err.status}`, { code: err.status, cause: err });
    const code = get(err, 'code');
    const c = typeof code === 'string' || typeof code === 'number' ? code : undefined;
    return new PlatformError('discord', { kind: 'retry' }, thrownMessage(err), { ...(c !== undefined ? { code: c } : {}), cause: err });
  } catch {
    return new PlatformError('discord', { kind: 'retry' }, thrownMessage(err));
  }
}
