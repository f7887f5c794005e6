/**
 * The foreground window shared by `exec_command` and `input_command`: stream a session's output as it
 * arrives until the leader has exited (and its output drained), the window ends, or the signal aborts.
 */
import type { CommandSession } from './command-session';

export type WindowEnd = 'exited' | 'window' | 'aborted';

export async function* streamWindow(session: CommandSession, windowMs: number, signal: AbortSignal): AsyncGenerator<string, WindowEnd> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const exitedBefore = !session.running;
    const chunk = session.takeUnread();
    if (chunk) yield chunk;
    if (exitedBefore) return 'exited';
    if (signal.aborted) return 'aborted';
    const left = deadline - Date.now();
    if (left <= 0) return 'window';
    // The consumer ran while the chunk was taken: look again before sleeping, or a change would be missed.
    if (chunk) continue;
    await session.changed.wait(left, signal);
  }
}

/** What is left to read, then the exit (use after the leader exited or was terminated). */
export async function drainAfterExit(session: CommandSession): Promise<string> {
  await session.finished;
  return session.takeUnread();
}

export const runningNote = (id: string) =>
  `[process running with process_id ${id}; poll or send input with input_command, stop it with kill_command]`;
