/**
 * The Environment's numbers (engine.md §11), in one place so tools, the close-out and tests agree.
 * Char limits count JS string length; byte limits count UTF-8 bytes.
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_LENGTH = 16_000;
/** The archive of one truncated output holds at most 8 MiB − 1 B. */
export const ARCHIVE_MAX_BYTES = 8 * 1024 * 1024 - 1;
export const ARCHIVE_DIR_NAME = 'truncated-tool-output';

export const MIN_YIELD_MS = 250;
/** A tool's foreground window ends this long before its timeout. */
export const YIELD_MARGIN_MS = 1_000;
export const EXEC_YIELD_MS = 60_000;
export const INPUT_WRITE_YIELD_MS = 250;
export const INPUT_POLL_YIELD_MS = 120_000;
export const SUBAGENT_PROMPT_YIELD_MS = 300_000;
export const SUBAGENT_POLL_YIELD_MS = 10_000;

export const KILL_GRACE_MS = 1_000;
export const MAX_COMMAND_SESSIONS = 64;
export const MAX_SUBAGENTS = 8;
export const UNREAD_BUFFER_CHARS = 1024 * 1024;
export const MAX_BUFFERED_CHILD_MESSAGES = 4096;
export const BACKGROUND_IDLE_TTL_MS = 10 * 24 * 60 * 60 * 1000;
export const REPORT_DETAIL_CHARS = 4_000;
export const REPORT_LABEL_CHARS = 120;

export const READ_FILE_DEFAULT_LIMIT = 2_000;
export const READ_FILE_MAX_LINE_CHARS = 2_000;
export const READ_FILE_SCAN_BYTES = 8 * 1024 * 1024;

export const TOOL_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
export const MCP_TOOL_NAME_MAX = 128;

/** How long the close-out waits for an aborted tool to wind down before closing without it. */
export const ABORT_GRACE_MS = 3_000;

/** Clamp a requested foreground window to [250, timeoutMs − 1000] (no upper bound when the timeout is off). */
export function clampYield(requested: number, timeoutMs: number): number {
  const upper = timeoutMs > 0 ? Math.max(MIN_YIELD_MS, timeoutMs - YIELD_MARGIN_MS) : Number.POSITIVE_INFINITY;
  return Math.min(Math.max(requested, MIN_YIELD_MS), upper);
}

/** The last `max` chars of `text`. */
export function tail(text: string, max: number): string {
  return text.length <= max ? text : text.slice(text.length - max);
}

/** One-line label of at most `max` chars. */
export function label(text: string, max = REPORT_LABEL_CHARS): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
