/**
 * Discord API error replies: `DcApiError` is thrown by route handlers and rendered as Discord renders
 * it, HTTP status plus `{ message, code, errors? }`. `dcErrors` holds the messages and statuses the
 * real API uses for each JSON code; `FormErrors` builds the nested `errors` tree of a 50035 reply
 * (`{ content: { _errors: [{ code, message }] } }`).
 */
import type { Json } from './discord-types';

export interface DcErrorBody {
  message: string;
  code: number;
  errors?: Json;
  retry_after?: number;
  global?: boolean;
}

export class DcApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Json,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DcApiError';
  }

  body(): DcErrorBody {
    const b: DcErrorBody = { message: this.message, code: this.code };
    if (this.errors) b.errors = this.errors;
    if (this.retryAfter !== undefined) {
      b.retry_after = this.retryAfter;
      b.global = false;
    }
    return b;
  }
}

/** Canonical (status, message) per JSON error code, as the API answers them. */
export const ERROR_CATALOG: Record<number, [number, string]> = {
  10003: [404, 'Unknown Channel'],
  10004: [404, 'Unknown Guild'],
  10007: [404, 'Unknown Member'],
  10008: [404, 'Unknown Message'],
  10013: [404, 'Unknown User'],
  10014: [400, 'Unknown Emoji'],
  10015: [404, 'Unknown Webhook'],
  10062: [404, 'Unknown interaction'],
  10063: [404, 'Unknown application command'],
  30034: [429, 'Max number of daily application command creates has been reached (200)'],
  30046: [400, 'Maximum number of edits to messages older than 1 hour reached. Try again later'],
  40005: [413, 'Request entity too large'],
  40058: [400, 'Cannot send a message in a forum channel'],
  40060: [400, 'Interaction has already been acknowledged.'],
  50001: [403, 'Missing Access'],
  50005: [403, 'Cannot edit a message authored by another user'],
  50006: [400, 'Cannot send an empty message'],
  50007: [403, 'Cannot send messages to this user'],
  50008: [400, 'Cannot send messages in a non-text channel'],
  50013: [403, 'Missing Permissions'],
  50024: [400, 'Cannot execute action on this channel type'],
  50027: [401, 'Invalid Webhook Token'],
  50033: [400, 'Invalid Recipient(s)'],
  50035: [400, 'Invalid Form Body'],
  50083: [400, 'Thread is archived'],
  50109: [400, 'The request body contains invalid JSON.'],
  160002: [403, 'Cannot reply without permission to read message history'],
  160004: [400, 'A thread has already been created for this message'],
  160005: [400, 'Thread is locked'],
};

/** An error for a JSON code with its usual status and message (status overridable for faults). */
export function errorForCode(code: number, status?: number, message?: string): DcApiError {
  const known = ERROR_CATALOG[code];
  return new DcApiError(status ?? known?.[0] ?? 400, code, message ?? known?.[1] ?? `Error ${code}`);
}

export class FormErrors {
  private readonly tree: Json = {};
  private count = 0;

  /** Records an error at a dotted path such as `components.0.components.1.label`. */
  add(path: string, code: string, message: string): this {
    let node = this.tree;
    for (const key of path.split('.')) {
      node[key] ??= {};
      node = node[key] as Json;
    }
    const list = (node._errors ??= []) as Array<{ code: string; message: string }>;
    list.push({ code, message });
    this.count++;
    return this;
  }

  maxLength(path: string, max: number): this {
    return this.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  }

  badLength(path: string, min: number, max: number): this {
    return this.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
  }

  required(path: string): this {
    return this.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
  }

  get empty(): boolean {
    return this.count === 0;
  }

  toError(): DcApiError {
    return new DcApiError(400, 50035, 'Invalid Form Body', this.tree);
  }

  /** Throws the 50035 reply if anything was recorded. */
  throwIfAny(): void {
    if (this.count > 0) throw this.toError();
  }
}

export const dcErrors = {
  unauthorized: () => new DcApiError(401, 0, '401: Unauthorized'),
  notFound: () => new DcApiError(404, 0, '404: Not Found'),
  methodNotAllowed: () => new DcApiError(405, 0, '405: Method Not Allowed'),
  unknownChannel: () => errorForCode(10003),
  unknownGuild: () => errorForCode(10004),
  unknownMember: () => errorForCode(10007),
  unknownMessage: () => errorForCode(10008),
  unknownUser: () => errorForCode(10013),
  unknownEmoji: () => errorForCode(10014),
  unknownWebhook: () => errorForCode(10015),
  unknownInteraction: () => errorForCode(10062),
  unknownCommand: () => errorForCode(10063),
  alreadyAcknowledged: () => errorForCode(40060),
  missingAccess: () => errorForCode(50001),
  missingPermissions: () => errorForCode(50013),
  notAuthor: () => errorForCode(50005),
  emptyMessage: () => errorForCode(50006),
  cannotDmUser: () => errorForCode(50007),
  nonTextChannel: () => errorForCode(50008),
  wrongChannelType: () => errorForCode(50024),
  invalidWebhookToken: () => errorForCode(50027),
  invalidRecipient: () => errorForCode(50033),
  threadArchived: () => errorForCode(50083),
  threadLocked: () => errorForCode(160005),
  threadExists: () => errorForCode(160004),
  replyNeedsHistory: () => errorForCode(160002),
  oldMessageEdits: () => errorForCode(30046),
  tooLarge: () => errorForCode(40005),
  invalidJson: () => errorForCode(50109),
  forumPost: () => errorForCode(40058),
  invalidForm: (path: string, code: string, message: string) => new FormErrors().add(path, code, message).toError(),
};
