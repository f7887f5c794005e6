/**
 * classifyTelegramError: any failure of a Bot API call (grammY's GrammyError / HttpError, or anything
 * else) as one PlatformError (platforms.md "Retry vs surface"): 429 / 5xx / network → retry (429 with the
 * server's retry_after, scoped to the chat); "not modified", "query is too old" → ignore; bad entities,
 * too long, message gone, rejected drafts → degrade; 401, blocked, kicked, missing rights → surface.
 */
import { GrammyError, HttpError } from 'grammy';
import { PlatformError, thrownMessage, type ErrorClassification } from '../contract/errors';

/** The fields of a Bot API error reply (what GrammyError carries). */
interface ApiFailure {
  error_code: number;
  description: string;
  method?: string;
  parameters?: { retry_after?: number };
}

function apiFailure(err: unknown): ApiFailure | undefined {
  if (err instanceof GrammyError) return { error_code: err.error_code, description: err.description, method: err.method, parameters: err.parameters };
  const e = err as Partial<ApiFailure> | null | undefined;
  if (e && typeof e === 'object' && typeof e.error_code === 'number' && typeof e.description === 'string') {
    return { error_code: e.error_code, description: e.description, ...(typeof e.method === 'string' ? { method: e.method } : {}), ...(e.parameters ? { parameters: e.parameters } : {}) };
  }
  return undefined;
}

const has = (d: string, ...needles: string[]) => needles.some((n) => d.includes(n));

/** The classification of a Bot API error reply. */
export function classifyApiFailure(f: ApiFailure): ErrorClassification {
  const d = f.description.toLowerCase();
  const code = f.error_code;
  if (code === 429) {
    const s = f.parameters?.retry_after;
    return typeof s === 'number' && s >= 0 ? { kind: 'retry', retryAfterMs: Math.round(s * 1000), scope: 'chat' } : { kind: 'retry', scope: 'chat' };
  }
  if (code >= 500) return { kind: 'retry' };
  if (code === 401) return { kind: 'surface', reason: 'auth' };
  if (code === 403) {
    return has(d, 'blocked by the user', 'user is deactivated') ? { kind: 'surface', reason: 'blocked' } : { kind: 'surface', reason: 'permission' };
  }
  if (has(d, 'message is not modified')) return { kind: 'ignore', reason: 'not_modified' };
  if (has(d, 'query is too old', 'query id is invalid')) return { kind: 'ignore', reason: 'query_too_old' };
  // a draft the chat does not take (group, old server, unsupported peer): the writer falls back to send + edit
  if (f.method === 'sendMessageDraft') return { kind: 'degrade', reason: 'draft_unsupported' };
  if (has(d, "can't parse entities", "can't find end of", 'unsupported start tag', 'entity_text_invalid')) return { kind: 'degrade', reason: 'format' };
  if (has(d, 'message is too long', 'text is too long', 'message_too_long')) return { kind: 'degrade', reason: 'too_long' };
  if (has(d, 'message to edit not found', 'message to delete not found', "message can't be edited", "message can't be deleted", 'message_id_invalid')) {
    return { kind: 'degrade', reason: 'gone' };
  }
  if (has(d, 'chat not found', 'not enough rights', 'have no rights', 'chat_write_forbidden', 'topic_closed', 'message thread not found', 'bot is not a member')) {
    return { kind: 'surface', reason: 'permission' };
  }
  // anything else: retried a bounded number of times by the writer / outbox, then reported
  return { kind: 'retry' };
}

/** Maps anything a Telegram call threw to a classified PlatformError (PlatformErrors pass through). */
export function classifyTelegramError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  const f = apiFailure(err);
  if (f) {
    const where = f.method ? `${f.method}: ` : '';
    return new PlatformError('telegram', classifyApiFailure(f), `${where}${f.error_code} ${f.description}`, { code: f.error_code, cause: err });
  }
  if (err instanceof HttpError) return new PlatformError('telegram', { kind: 'retry' }, err.message, { code: 'network', cause: err });
  return new PlatformError('telegram', { kind: 'retry' }, thrownMessage(err), { cause: err });
}
