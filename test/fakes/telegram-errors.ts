/**
 * Bot API error replies. A `TgApiError` is thrown by method handlers and rendered as the real service
 * renders it: HTTP status = error_code, body `{ ok:false, error_code, description, parameters? }`.
 * `tgErrors` builds the descriptions Telegram uses; tests also pass them to `failNext`.
 */

export interface TgErrorParameters {
  retry_after?: number;
  migrate_to_chat_id?: number;
}

export class TgApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: TgErrorParameters,
  ) {
    super(description);
    this.name = 'TgApiError';
  }

  body(): { ok: false; error_code: number; description: string; parameters?: TgErrorParameters } {
    return this.parameters
      ? { ok: false, error_code: this.code, description: this.description, parameters: { ...this.parameters } }
      : { ok: false, error_code: this.code, description: this.description };
  }
}

export const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

export const tgErrors = {
  badRequest: (what: string) => new TgApiError(400, `Bad Request: ${what}`),
  unauthorized: () => new TgApiError(401, 'Unauthorized'),
  forbidden: (what: string) => new TgApiError(403, `Forbidden: ${what}`),
  blockedByUser: () => new TgApiError(403, 'Forbidden: bot was blocked by the user'),
  kickedFromGroup: () => new TgApiError(403, 'Forbidden: bot was kicked from the group chat'),
  kickedFromSupergroup: () => new TgApiError(403, 'Forbidden: bot was kicked from the supergroup chat'),
  notFound: () => new TgApiError(404, 'Not Found'),
  conflict: (what: string) => new TgApiError(409, `Conflict: ${what}`),
  tooManyRequests: (retryAfterSeconds: number) =>
    new TgApiError(429, `Too Many Requests: retry after ${retryAfterSeconds}`, { retry_after: retryAfterSeconds }),
  serverError: (code = 500, description = 'Internal Server Error') => new TgApiError(code, description),
  chatNotFound: () => new TgApiError(400, 'Bad Request: chat not found'),
  notModified: () => new TgApiError(400, `Bad Request: ${NOT_MODIFIED}`),
  messageToEditNotFound: () => new TgApiError(400, 'Bad Request: message to edit not found'),
  messageToDeleteNotFound: () => new TgApiError(400, 'Bad Request: message to delete not found'),
  cantParseEntities: (detail: string) => new TgApiError(400, `Bad Request: can't parse entities: ${detail}`),
  queryTooOld: () =>
    new TgApiError(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid'),
  pollConflict: () =>
    new TgApiError(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'),
  webhookActive: () =>
    new TgApiError(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"),
};
