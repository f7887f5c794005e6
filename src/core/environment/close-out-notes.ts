/**
 * The closing verdict of a tool call (engine.md §4.2): its stop_reason and the notes appended after the
 * capped output, in order — the tool's own note, then the interruption note. Precedence: user abort
 * (`aborted`) > timeout (`failed`) > throw (`failed`) > the tool's self-report (default `completed`).
 */
import type { StopReason } from '../omnimessage/types';
import type { ToolResult } from '../interfaces';
import { errorMessage } from './async-utils';

export const INTERRUPTED_NOTE = '[interrupted: tool aborted by user]';
export const timeoutNote = (ms: number) => `[tool timeout: exceeded ${ms}ms]`;
export const toolErrorNote = (msg: string) => `[tool error] ${msg}`;

/** How the tool body ended: it returned, it threw, or the close-out stopped waiting for it. */
export type ToolEnd = { kind: 'returned'; result: ToolResult } | { kind: 'threw'; error: unknown } | { kind: 'abandoned' };

export interface InterruptCauses {
  userAborted: boolean;
  timedOut: boolean;
}

export function closingVerdict(end: ToolEnd, causes: InterruptCauses, timeoutMs: number): { stopReason: StopReason; notes: string[] } {
  const result = end.kind === 'returned' ? end.result : {};
  let stopReason: StopReason = result.stop_reason ?? 'completed';
  const notes: string[] = [];
  if (result.note) notes.push(result.note);
  if (causes.userAborted) {
    stopReason = 'aborted';
    notes.push(INTERRUPTED_NOTE);
  } else if (causes.timedOut) {
    stopReason = 'failed';
    notes.push(timeoutNote(timeoutMs));
  } else if (end.kind === 'threw') {
    stopReason = 'failed';
    notes.push(toolErrorNote(errorMessage(end.error)));
  }
  return { stopReason, notes };
}
