/**
 * The window in which a `run_subagent` / `input_subagent` call watches its subagent: child messages are
 * forwarded (origin-tagged) as they arrive, the child's direct text becomes this call's output, and the
 * call ends when the round ends (completed, or failed with `[subagent aborted: …]`), when the window
 * closes (the child keeps working; the note gives its id), or on abort (which stops the child's round).
 */
import type { ToolExecutionContext, ToolResult } from '../../interfaces';
import { abortedNote } from './subagent-manager';
import type { SubagentEntry } from './subagent-entry';

export const subagentRunningNote = (id: string) =>
  `[subagent running with subagent_id ${id}; poll it with input_subagent, stop it with kill_subagent]`;
export const subagentIdleNote = (id: string) => `[subagent ${id} is idle; give it more work with input_subagent]`;

export async function* watchSubagent(entry: SubagentEntry, windowMs: number, ctx: ToolExecutionContext): AsyncGenerator<string, ToolResult> {
  entry.watchers++;
  const deadline = Date.now() + windowMs;
  /** Forward pending messages and take pending text ('' if none). */
  const take = (): string => {
    for (const m of entry.takeMessages()) ctx.forward(m);
    return entry.takeText();
  };
  try {
    for (;;) {
      const wasRunning = entry.running;
      const text = take();
      if (text) yield text;
      if (!wasRunning) {
        const outcome = entry.takeOutcome();
        if (outcome?.status === 'failed') return { stop_reason: 'failed', note: abortedNote(outcome.reason ?? 'aborted') };
        return { note: subagentIdleNote(entry.id) };
      }
      if (ctx.signal.aborted) {
        await entry.stopRound('tool call aborted');
        const rest = take();
        if (rest) yield rest;
        entry.takeOutcome();
        return {};
      }
      const left = deadline - Date.now();
      if (left <= 0) return { note: subagentRunningNote(entry.id) };
      // The consumer ran while the text was taken: look again before sleeping, or a change would be missed.
      if (text) continue;
      await entry.changed.wait(left, ctx.signal);
    }
  } finally {
    entry.watchers--;
  }
}
