/**
 * The message writer's options, the events it reports (every send with the content it made visible, so the
 * delivery ledger can keep what a message last showed) and its result.
 */
import type { Clock } from '../contract/clock';
import type { PlatformError } from '../contract/errors';
import type { PlatformLimits } from '../contract/limits';
import type { RateOp } from '../contract/rate';
import type { MessageSurface, OutboundContent } from '../contract/surface';
import type { RateGovernor } from './rate-governor';

export interface WriterOptions {
  surface: MessageSurface;
  clock: Clock;
  governor: RateGovernor;
  limits: PlatformLimits;
  isDM: boolean;
  /** Length of Markdown as the platform counts it once rendered (default: the surface's measure, else the Markdown in `limits.lengthUnit`). */
  measure?: (markdown: string) => number;
  /** Minimum time between edits (default: the limits' DM / group interval). */
  intervalMs?: number;
  /** Room kept in the first message for the tool lines (default min(600, splitTarget / 4)). */
  headerReserve?: number;
  /** Live requests give up when the governor or a retry_after would make them wait longer (default 5 s). */
  liveMaxWaitMs?: number;
  /** Tries per final request (default 5). */
  finalMaxTries?: number;
  /** Re-send an unchanged draft preview this often so it does not expire (default 20 s). */
  draftRefreshMs?: number;
  onEvent?: (e: WriterEvent) => void;
}

export type WriterEvent =
  | { type: 'sent'; op: RateOp; part: number; messageId?: string; final: boolean; content: OutboundContent }
  | { type: 'skipped'; op: RateOp; part: number; retryAt: number }
  | { type: 'retry'; op: RateOp; part: number; attempt: number; error: PlatformError }
  | { type: 'degraded'; op: RateOp; part: number; reason: string }
  | { type: 'failed'; op: RateOp; part: number; error: PlatformError };

/** ok: every message shows its final content. Otherwise a request failed for good, or the writer was closed first. */
export type WriterResult =
  | { ok: true; messageIds: string[] }
  | { ok: false; messageIds: string[]; reason: 'failed'; error: PlatformError }
  | { ok: false; messageIds: string[]; reason: 'closed'; error?: undefined };
