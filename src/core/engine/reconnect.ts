/**
 * The shared reconnect ladder (engine.md §2.5, §11): at most 5 in-run retries of a failed LLM request,
 * waiting min(2000·2^(n−1), 30000) ms before retry n, and the exact abort reasons a run ends with when the
 * ladder gives out. Compaction requests draw on the same ladder.
 */
import type { LLMOutcome } from '../interfaces';
import type { StopReason } from '../omnimessage/types';

export const MAX_RECONNECTS = 5;
export const RECONNECT_BASE_MS = 2000;
export const RECONNECT_MAX_MS = 30000;

/** Wait before retry `n` (1-based). */
export function reconnectDelayMs(n: number): number {
  return Math.min(RECONNECT_BASE_MS * 2 ** (n - 1), RECONNECT_MAX_MS);
}

const RETRYABLE: readonly StopReason[] = ['failed', 'timeout', 'malformed'];

/** True for outcomes the turn loop retries in-run: everything but completed, aborted, auth and a permanent failure. */
export function isRetryable(outcome: LLMOutcome): boolean {
  return RETRYABLE.includes(outcome.status) && !(outcome.status === 'failed' && outcome.permanent === true);
}

/** The abort reason once all retries are spent, by the status of the last attempt. */
export function exhaustionReason(outcome: LLMOutcome): string {
  if (outcome.status === 'malformed') return `malformed response failed after ${MAX_RECONNECTS} retries`;
  if (outcome.status === 'failed') return `llm request failed after ${MAX_RECONNECTS} retries: ${outcome.errorMessage ?? 'unknown error'}`;
  return `reconnect failed after ${MAX_RECONNECTS} retries`;
}

/** Normalizes whatever a model returned (or threw) into an outcome with a known status. */
export function normalizeOutcome(raw: unknown): LLMOutcome {
  const o = raw as Partial<LLMOutcome> | undefined;
  const known: readonly StopReason[] = ['completed', 'failed', 'aborted', 'timeout', 'malformed', 'auth'];
  if (!o || typeof o !== 'object' || !known.includes(o.status as StopReason)) {
    return { status: 'failed', errorMessage: 'model returned no valid outcome' };
  }
  const out: LLMOutcome = { status: o.status as StopReason };
  if (typeof o.errorMessage === 'string') out.errorMessage = o.errorMessage;
  if (o.permanent === true) out.permanent = true;
  return out;
}
