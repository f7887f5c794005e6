/**
 * `input_command` (engine.md §4.4): write `chars` to a managed command's stdin (a lone "\u0003" sends
 * SIGINT to its process group instead; mixed with other text it is refused), or poll when `chars` is empty,
 * then stream its output for the window (250 ms after a write, 120000 ms for a poll, clamped). An exited
 * command returns its exit facts and is forgotten. An abort ends only the wait, never the command.
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { INPUT_POLL_YIELD_MS, INPUT_WRITE_YIELD_MS, clampYield } from '../limits';
import { exitNote, exitSucceeded, type CommandSession } from './command-session';
import type { CommandSessionManager } from './command-sessions';
import { runningNote, streamWindow } from './command-window';
import { definitionTimeout, descriptionArg, type ToolDeps, type ValidatedTool } from './tool-kit';

const CTRL_C = '\u0003';
const INPUT_TIMEOUT_MS = 130_000;

const schema = z.strictObject({
  description: descriptionArg,
  process_id: z.string().min(1),
  chars: z.string().optional(),
  yield_time_ms: z.number().int().optional(),
});
type Args = z.infer<typeof schema>;

export function unknownProcess(id: string, commands: CommandSessionManager): ToolResult & { text: string } {
  const known = commands.ids();
  return {
    stop_reason: 'failed',
    text: `Unknown process_id: ${id}. ${known.length ? `Managed processes: ${known.join(', ')}.` : 'No processes are running.'}`,
  };
}

/** Exit facts of a finished session, after which it is forgotten. */
function exited(session: CommandSession, commands: CommandSessionManager, extra?: string): ToolResult {
  commands.remove(session.id);
  const exit = session.exit ?? { code: null, signal: null };
  const note = [extra, exitNote(exit, true)].filter(Boolean).join('\n');
  return { stop_reason: exitSucceeded(exit) ? 'completed' : 'failed', note };
}

export function inputCommandTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  const timeoutMs = definitionTimeout(definition, INPUT_TIMEOUT_MS);
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const session = deps.commands.get(args.process_id);
      if (!session) {
        const { text, ...result } = unknownProcess(args.process_id, deps.commands);
        yield text;
        return result;
      }
      const chars = args.chars ?? '';
      if (chars.includes(CTRL_C) && chars !== CTRL_C) {
        yield 'Refused: Ctrl-C ("\\u0003") must be sent alone in `chars`; send it in its own input_command call.';
        return { stop_reason: 'failed' };
      }
      const release = await session.acquire(ctx.signal);
      if (!release) return {};
      try {
        if (!session.running) {
          const pending = session.takeUnread();
          if (pending) yield pending;
          return exited(session, deps.commands, chars ? '[input not delivered: the process had already exited]' : undefined);
        }
        if (chars === CTRL_C) session.signal('SIGINT');
        else if (chars) session.write(chars);
        const windowMs = clampYield(args.yield_time_ms ?? (chars ? INPUT_WRITE_YIELD_MS : INPUT_POLL_YIELD_MS), timeoutMs);
        const end = yield* streamWindow(session, windowMs, ctx.signal);
        if (end === 'exited') return exited(session, deps.commands);
        return { note: runningNote(session.id) };
      } finally {
        release();
      }
    },
  };
}
