/**
 * PlatformError: the one error type adapter calls throw, classified once per adapter (platforms.md
 * "Retry vs surface"): `retry` (429 / 5xx / network, honouring retryAfterMs), `degrade` (resend plain,
 * re-split, post anew, drop native streaming), `ignore` (already done) or `surface` (stop and tell the operator).
 * Writers and the gateway branch on `classification`, never on SDK error shapes.
 */
import type { Platform } from './thread-ref';

/** Which rate scope a 429 names, when the platform says (Discord `global`, Slack per method, Telegram per chat). */
export type RetryScope = 'account' | 'method' | 'chat';

export type ErrorClassification =
  | { kind: 'retry'; retryAfterMs?: number; scope?: RetryScope }
  | { kind: 'degrade'; reason: 'format' | 'too_long' | 'gone' | 'draft_unsupported' }
  | { kind: 'ignore'; reason: 'not_modified' | 'query_too_old' | 'already_acknowledged' }
  | { kind: 'surface'; reason: 'auth' | 'permission' | 'blocked' | 'rate_limited_app' | 'invalid_request' };

export type ErrorKind = ErrorClassification['kind'];

export class PlatformError extends Error {
  readonly platform: Platform | 'test';
  readonly classification: ErrorClassification;
  /** The platform's own code or description (e.g. 429, 50035, "message is not modified"). */
  readonly code?: string | number;

  constructor(platform: Platform | 'test', classification: ErrorClassification, message: string, opts: { code?: string | number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'PlatformError';
    this.platform = platform;
    this.classification = classification;
    this.code = opts.code;
  }

  get kind(): ErrorKind {
    return this.classification.kind;
  }
}

export const isPlatformError = (e: unknown): e is PlatformError => e instanceof PlatformError;

/** A message for anything thrown, never throwing itself (objects without a prototype cannot be stringified). */
export function thrownMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    const m = (error as { message?: unknown } | null | undefined)?.message;
    if (typeof m === 'string') return m;
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** Turns anything an adapter call threw into a PlatformError (adapters pass their classifier). */
export type ErrorClassifier = (error: unknown) => PlatformError;

/**
 * Fallback for errors no classifier recognised (a bug in the classifier or an unexpected SDK failure):
 * treated as `retry`, which writers bound (finals ≤ 5 tries), so unknown failures are neither dropped
 * silently nor retried forever.
 */
export function asPlatformError(error: unknown, platform: Platform | 'test' = 'test'): PlatformError {
  if (error instanceof PlatformError) return error;
  const raw = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  const code = typeof raw === 'string' || typeof raw === 'number' ? raw : undefined;
  return new PlatformError(platform, { kind: 'retry' }, thrownMessage(error), { code, cause: error });
}

/** Short operator-facing description of a surfaced error (no stack traces into chats). */
export function describeSurfaced(e: PlatformError): string {
  switch (e.classification.kind) {
    case 'surface':
      switch (e.classification.reason) {
        case 'auth': return `the ${e.platform} token was rejected; the operator must fix it`;
        case 'permission': return `the bot lacks permission on ${e.platform} (${e.message})`;
        case 'blocked': return `the user blocked the bot on ${e.platform}`;
        case 'rate_limited_app': return `${e.platform} rate-limited the whole app`;
        case 'invalid_request': return `the ${e.platform} adapter cannot address this conversation (${e.message})`;
      }
      break;
    case 'retry': return `${e.platform} kept failing (${e.message})`;
    case 'degrade': return `${e.platform} rejected the message (${e.classification.reason})`;
    case 'ignore': return `${e.platform}: ${e.classification.reason}`;
  }
  return e.message;
}
