/**
 * The one retry policy of every platform write (live edits, finals, approval cards, notices): how many
 * tries a final gets, how long to back off when the platform names no delay, and which rate buckets a 429
 * pauses — the level it names, else only the narrowest bucket of the call, so a bare 429 in one chat
 * never stops the whole account. With a server delay the governor's pause is the wait.
 */
import type { RetryScope } from '../contract/errors';
import type { RateScope } from '../contract/rate';

/** Tries per final request, approval card or notice. */
export const FINAL_MAX_TRIES = 5;
export const MAX_BACKOFF_MS = 30_000;

/** Without a server delay: 1 s, 2 s, 4 s … up to 30 s, before try `tries + 1`. */
export function backoffMs(tries: number): number {
  return Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.max(0, tries - 1));
}

/** The buckets a 429 pauses: those of the level it names, else the narrowest one of the call. */
export function pauseScopes(scopes: readonly RateScope[], level: RetryScope | undefined): RateScope[] {
  if (scopes.length === 0) return [];
  const named = level ? scopes.filter((s) => s.level === level) : [];
  return named.length ? named : [scopes[scopes.length - 1]];
}
